import { useMemo, useState, type FormEvent } from 'react';
import type { Role } from '../api/types';
import { useRpcQuery } from '../api/use-rpc-query';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { FormFooter } from '../components/FormFooter';
import { CheckboxGroup, TextAreaField, TextField } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { roleKeyFromName } from './role-changes';

/** Creates a custom role, or changes one (its key is fixed), with permissions from the catalog. */
export function RoleDialog({ open, role, onClose }: { open: boolean; role?: Role; onClose: (saved: boolean) => void }) {
  return open ? <RoleForm key={role?.key ?? 'new'} role={role} onClose={onClose} /> : null;
}

function RoleForm({ role, onClose }: { role?: Role; onClose: (saved: boolean) => void }) {
  const { rpc, permissions: held } = useSignedIn();
  const catalog = useRpcQuery('rbac.permissions.list');
  const [name, setName] = useState(role?.name ?? '');
  const [key, setKey] = useState(role?.key ?? '');
  const [keyEdited, setKeyEdited] = useState(false);
  const [description, setDescription] = useState(role?.description ?? '');
  const [chosen, setChosen] = useState<Set<string>>(new Set(role?.permissions ?? []));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  // Only what you hold can be given (the server refuses more); a role's current permissions stay listed.
  const options = useMemo(
    () =>
      (catalog.data?.items ?? [])
        .filter((permission) => held.has(permission.key) || role?.permissions.includes(permission.key))
        .map((permission) => ({ value: permission.key, label: permission.key, description: permission.description })),
    [catalog.data, held, role],
  );
  const shownKey = role ? role.key : keyEdited ? key : roleKeyFromName(name);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const common = { name: name.trim(), description: description.trim(), permissions: [...chosen].sort() };
    try {
      if (role) await rpc.call('rbac.roles.update', { key: role.key, ...common });
      else await rpc.call('rbac.roles.create', { key: shownKey, ...common });
      onClose(true);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      title={role ? `Edit role ${role.name}` : 'New role'}
      onClose={() => onClose(false)}
      busy={busy}
      footer={<FormFooter formId="role-form" busy={busy} onCancel={() => onClose(false)} label={role ? 'Save role' : 'Create role'} busyLabel="Saving…" />}
    >
      <form id="role-form" onSubmit={(event) => void submit(event)}>
        <TextField label="Name" value={name} onChange={setName} required maxLength={100} data-autofocus />
        {role ? null : (
          <TextField
            label="Key"
            hint="How programs name the role (lower case, dashes); it cannot change later."
            value={shownKey}
            onChange={(value) => {
              setKeyEdited(true);
              setKey(value);
            }}
            required
            pattern="[a-z][a-z0-9\-]{0,62}"
            spellCheck={false}
          />
        )}
        <TextAreaField label="Description" value={description} onChange={setDescription} rows={2} maxLength={500} />
        <CheckboxGroup
          label="Permissions"
          hint="You can give only permissions you hold yourself."
          values={chosen}
          options={options}
          onChange={setChosen}
          empty={catalog.loading ? 'Loading the catalog…' : undefined}
        />
        <ErrorNotice error={error ?? catalog.error} />
      </form>
    </Dialog>
  );
}
