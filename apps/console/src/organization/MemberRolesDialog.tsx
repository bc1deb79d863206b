import { useState } from 'react';
import type { Role } from '../api/types';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { CheckboxGroup } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { roleChanges } from './role-changes';
import type { Member } from './types';

/** Changes a member's roles: the chosen set is reached by grants, then revocations, one call each. */
export function MemberRolesDialog({ member, roles, onClose }: { member: Member | undefined; roles: Role[]; onClose: (changed: boolean) => void }) {
  return member ? <RolesForm key={member.userId} member={member} roles={roles} onClose={onClose} /> : null;
}

function RolesForm({ member, roles, onClose }: { member: Member; roles: Role[]; onClose: (changed: boolean) => void }) {
  const { rpc } = useSignedIn();
  const [chosen, setChosen] = useState<Set<string>>(new Set(member.roleKeys));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [changed, setChanged] = useState(false);

  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      for (const change of roleChanges(member.roleKeys, chosen)) {
        await rpc.call(change.procedure, { userId: member.userId, roleKey: change.roleKey });
        setChanged(true);
      }
      onClose(true);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      title={`Roles of ${member.displayName}`}
      onClose={() => onClose(changed)}
      busy={busy}
      footer={
        <>
          <button type="button" className="button" onClick={() => onClose(changed)} disabled={busy}>
            Cancel
          </button>
          <button type="button" className="button button-primary" onClick={() => void save()} disabled={busy || chosen.size === 0}>
            {busy ? 'Saving…' : 'Save roles'}
          </button>
        </>
      }
    >
      <CheckboxGroup
        label="Roles"
        hint="A change applies from their next request."
        values={chosen}
        options={roles.map((role) => ({ value: role.key, label: role.key, description: `${role.name}: ${role.description}` }))}
        onChange={setChosen}
        error={chosen.size === 0 ? 'Keep at least one role; to take every right away, remove the member' : undefined}
      />
      <ErrorNotice error={error} />
    </Dialog>
  );
}
