import { useState, type FormEvent } from 'react';
import type { Role } from '../api/types';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { FormFooter } from '../components/FormFooter';
import { CheckboxGroup, TextField } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { inviteLink } from './invite-link';
import type { SentInvite } from './types';

export interface InviteDialogProps {
  open: boolean;
  roles: Role[];
  /** Set when asking for a new link for a pending invitation: its address and roles. */
  again?: { email: string; roleKeys: string[] };
  onClose: (sent: boolean) => void;
}

/** Invites someone by email with roles, then shows the one-time link to send them. */
export function InviteDialog({ open, roles, again, onClose }: InviteDialogProps) {
  return open ? <InviteForm roles={roles} again={again} onClose={onClose} /> : null;
}

function InviteForm({ roles, again, onClose }: Omit<InviteDialogProps, 'open'>) {
  const { rpc } = useSignedIn();
  const [email, setEmail] = useState(again?.email ?? '');
  const [roleKeys, setRoleKeys] = useState<Set<string>>(new Set(again?.roleKeys ?? ['member']));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [sent, setSent] = useState<SentInvite>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (roleKeys.size === 0) return;
    setBusy(true);
    setError(undefined);
    try {
      setSent(await rpc.call('organizations.invite', { email: email.trim(), roleKeys: [...roleKeys].sort() }));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  if (sent) {
    const link = inviteLink(location.origin, sent.token);
    return (
      <Dialog
        open
        title="Invitation ready"
        onClose={() => onClose(true)}
        footer={
          <button type="button" className="button button-primary" onClick={() => onClose(true)}>
            Done
          </button>
        }
      >
        <p className="notice notice-warning" role="status">
          Send this link to <strong>{sent.invite.email}</strong>: <strong>you will not see it again.</strong> It works once, until{' '}
          {new Date(sent.invite.expiresAt).toLocaleDateString()}, for someone signed in with that address.
        </p>
        <div className="field">
          <label htmlFor="invite-link">Invitation link</label>
          <input id="invite-link" className="token" readOnly value={link} data-autofocus onFocus={(event) => event.target.select()} />
        </div>
        <CopyButton text={link} label="Copy link" />
      </Dialog>
    );
  }

  return (
    <Dialog
      open
      title={again ? `New invitation link for ${again.email}` : 'Invite a member'}
      onClose={() => onClose(false)}
      busy={busy}
      footer={<FormFooter formId="invite-form" busy={busy} onCancel={() => onClose(false)} label={again ? 'Make a new link' : 'Invite'} busyLabel="Inviting…" />}
    >
      <form id="invite-form" onSubmit={(event) => void submit(event)} noValidate={false}>
        {again ? (
          <p>The link sent before stops working.</p>
        ) : (
          <TextField label="Email address" type="email" autoComplete="off" value={email} onChange={setEmail} required data-autofocus />
        )}
        <CheckboxGroup
          label="Roles"
          hint="What they may do here once they join. You can change it later."
          values={roleKeys}
          options={roles.map((role) => ({ value: role.key, label: role.key, description: `${role.name}: ${role.description}` }))}
          onChange={setRoleKeys}
          error={roleKeys.size === 0 ? 'Choose at least one role' : undefined}
        />
        <ErrorNotice error={error} />
      </form>
    </Dialog>
  );
}
