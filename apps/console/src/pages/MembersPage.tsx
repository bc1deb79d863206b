import { useState } from 'react';
import { useRpcQuery } from '../api/use-rpc-query';
import { formatDateTime } from '../app/format';
import { Link } from '../app/router';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EmptyState } from '../components/EmptyState';
import { ErrorNotice } from '../components/ErrorNotice';
import { InviteDialog } from '../organization/InviteDialog';
import { MemberRolesDialog } from '../organization/MemberRolesDialog';
import type { Member, PendingInvite } from '../organization/types';
import { useSignedIn } from '../session/session-context';

/** The people of the organization: invite, change roles, remove; pending invitations. */
export default function MembersPage() {
  const { rpc, permissions, me, refresh } = useSignedIn();
  const canInvite = permissions.has('members.manage');
  const canAssign = permissions.has('rbac.manage');
  const organization = useRpcQuery('organizations.get');
  const roles = useRpcQuery('rbac.roles.list');
  const invites = useRpcQuery('organizations.listInvites', {}, { enabled: canInvite });
  const [inviting, setInviting] = useState<{ email: string; roleKeys: string[] } | 'new'>();
  const [editing, setEditing] = useState<Member>();
  const [removing, setRemoving] = useState<Member>();
  const [canceling, setCanceling] = useState<PendingInvite>();

  const people = (organization.data?.members ?? []).filter((member) => member.kind === 'HUMAN');
  const roleNames = new Map((roles.data?.items ?? []).map((role) => [role.key, role.name]));
  const pending = invites.data?.items ?? [];

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Members</h1>
        {canInvite ? (
          <button type="button" className="button button-primary" onClick={() => setInviting('new')} disabled={!roles.data}>
            Invite a member
          </button>
        ) : null}
      </div>
      <p className="page-intro">
        The people of {organization.data?.name ?? 'this organization'} and their <Link to="/roles">roles</Link>. Programs act through{' '}
        <Link to="/service-accounts">service accounts</Link> instead.
      </p>
      <ErrorNotice error={organization.error ?? roles.error} />
      {organization.data ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Members</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Roles</th>
                <th scope="col">Joined</th>
                {canInvite || canAssign ? (
                  <th scope="col" className="row-actions">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {people.map((member) => (
                <tr key={member.userId}>
                  <th scope="row">
                    {member.displayName}
                    {member.userId === me.user.id ? <span className="choice-description-inline"> (you)</span> : null}
                    {member.disabled ? <span className="badge badge-disabled">locked out</span> : null}
                  </th>
                  <td>{member.email}</td>
                  <td className="wrap">
                    {member.roleKeys.map((key) => (
                      <span key={key} className="badge" title={key}>
                        {roleNames.get(key) ?? key}
                      </span>
                    ))}
                  </td>
                  <td>{formatDateTime(member.joinedAt)}</td>
                  {canInvite || canAssign ? (
                    <td className="row-actions">
                      <div className="button-row">
                        {canAssign ? (
                          <button type="button" className="button button-small" onClick={() => setEditing(member)} aria-label={`Change roles of ${member.displayName}`}>
                            Roles
                          </button>
                        ) : null}
                        {canInvite && member.userId !== me.user.id ? (
                          <button
                            type="button"
                            className="button button-small button-danger-quiet"
                            onClick={() => setRemoving(member)}
                            aria-label={`Remove ${member.displayName}`}
                          >
                            Remove
                          </button>
                        ) : null}
                      </div>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : organization.loading ? (
        <p role="status">Loading…</p>
      ) : null}

      {canInvite ? (
        <section className="section" aria-labelledby="invites-title">
          <h2 id="invites-title">Pending invitations</h2>
          <ErrorNotice error={invites.error} />
          {invites.data && pending.length === 0 ? (
            <EmptyState
              title="No pending invitations"
              actions={
                <button type="button" className="button" onClick={() => setInviting('new')} disabled={!roles.data}>
                  Invite a member
                </button>
              }
            >
              Invite a colleague by email: you get a link to send them, and they join when they open it signed in with that address.
            </EmptyState>
          ) : null}
          {pending.length > 0 ? (
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Pending invitations</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Roles</th>
                    <th scope="col">Link works until</th>
                    <th scope="col" className="row-actions">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {pending.map((invite) => (
                    <tr key={invite.id}>
                      <th scope="row">{invite.email}</th>
                      <td>{invite.roleKeys.map((key) => roleNames.get(key) ?? key).join(', ')}</td>
                      <td>{invite.expired ? <span className="badge badge-expired">expired</span> : formatDateTime(invite.expiresAt)}</td>
                      <td className="row-actions">
                        <div className="button-row">
                          <button
                            type="button"
                            className="button button-small"
                            onClick={() => setInviting({ email: invite.email, roleKeys: invite.roleKeys })}
                            aria-label={`New link for ${invite.email}`}
                          >
                            New link
                          </button>
                          <button
                            type="button"
                            className="button button-small button-danger-quiet"
                            onClick={() => setCanceling(invite)}
                            aria-label={`Cancel the invitation of ${invite.email}`}
                          >
                            Cancel
                          </button>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </section>
      ) : null}

      <InviteDialog
        open={inviting !== undefined}
        roles={roles.data?.items ?? []}
        again={inviting === 'new' ? undefined : inviting}
        onClose={(sent) => {
          setInviting(undefined);
          if (sent) void invites.reload();
        }}
      />
      <MemberRolesDialog
        member={editing}
        roles={roles.data?.items ?? []}
        onClose={(changed) => {
          const self = editing?.userId === me.user.id;
          setEditing(undefined);
          if (!changed) return;
          void organization.reload();
          // Your own roles changed: what the console offers you changes with them.
          if (self) void refresh();
        }}
      />
      <ConfirmDialog
        open={removing !== undefined}
        title="Remove member?"
        confirmLabel="Remove member"
        danger
        onConfirm={async () => {
          if (!removing) return;
          await rpc.call('organizations.removeMember', { userId: removing.userId });
          await organization.reload();
        }}
        onClose={() => setRemoving(undefined)}
      >
        <p>
          <strong>{removing?.displayName}</strong> ({removing?.email}) loses access to this organization at once, and their API keys
          for it are revoked. Inviting them again later gives them a fresh start.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={canceling !== undefined}
        title="Cancel invitation?"
        confirmLabel="Cancel invitation"
        danger
        onConfirm={async () => {
          if (!canceling) return;
          await rpc.call('organizations.cancelInvite', { id: canceling.id });
          await invites.reload();
        }}
        onClose={() => setCanceling(undefined)}
      >
        <p>The link sent to {canceling?.email} stops working.</p>
      </ConfirmDialog>
    </section>
  );
}
