import { useState } from 'react';
import type { Role } from '../api/types';
import { useRpcQuery } from '../api/use-rpc-query';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EmptyState } from '../components/EmptyState';
import { ErrorNotice } from '../components/ErrorNotice';
import { RoleDialog } from '../organization/RoleDialog';
import { useSignedIn } from '../session/session-context';

/** The organization's roles: the built-in four and custom ones, each a set of permissions from the catalog. */
export default function RolesPage() {
  const { rpc, permissions, refresh } = useSignedIn();
  const canManage = permissions.has('rbac.manage');
  const roles = useRpcQuery('rbac.roles.list');
  const [editing, setEditing] = useState<Role | 'new'>();
  const [deleting, setDeleting] = useState<Role>();
  const custom = (roles.data?.items ?? []).filter((role) => !role.builtIn);

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Roles</h1>
        {canManage ? (
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
            New role
          </button>
        ) : null}
      </div>
      <p className="page-intro">
        A role is a set of permissions; members hold one or more. The built-in roles cannot be changed; make a custom role for anything
        in between.
      </p>
      <ErrorNotice error={roles.error} />
      {roles.data ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Roles</caption>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Permissions</th>
                <th scope="col">Members</th>
                {canManage ? (
                  <th scope="col" className="row-actions">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {roles.data.items.map((role) => (
                <tr key={role.key}>
                  <th scope="row" className="wrap">
                    {role.name} {role.builtIn ? <span className="badge">built-in</span> : null}
                    <span className="choice-description">
                      <code>{role.key}</code>
                      {role.description ? ` · ${role.description}` : ''}
                    </span>
                  </th>
                  <td className="wrap">
                    <ul className="permission-chips" aria-label={`Permissions of ${role.name}`}>
                      {role.permissions.map((permission) => (
                        <li key={permission}>
                          <code>{permission}</code>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{role.memberCount}</td>
                  {canManage ? (
                    <td className="row-actions">
                      {role.builtIn ? null : (
                        <div className="button-row">
                          <button type="button" className="button button-small" onClick={() => setEditing(role)} aria-label={`Edit ${role.name}`}>
                            Edit
                          </button>
                          <button
                            type="button"
                            className="button button-small button-danger-quiet"
                            onClick={() => setDeleting(role)}
                            aria-label={`Delete ${role.name}`}
                          >
                            Delete
                          </button>
                        </div>
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : roles.loading ? (
        <p role="status">Loading…</p>
      ) : null}
      {roles.data && custom.length === 0 && canManage ? (
        <EmptyState
          title="No custom roles yet"
          actions={
            <button type="button" className="button" onClick={() => setEditing('new')}>
              New role
            </button>
          }
        >
          Make one when a built-in role gives too much or too little, e.g. “Sales” that may edit records but not models.
        </EmptyState>
      ) : null}

      <RoleDialog
        open={editing !== undefined}
        role={editing === 'new' ? undefined : editing}
        onClose={(saved) => {
          setEditing(undefined);
          if (!saved) return;
          void roles.reload();
          void refresh();
        }}
      />
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete role?"
        confirmLabel="Delete role"
        danger
        onConfirm={async () => {
          if (!deleting) return;
          await rpc.call('rbac.roles.delete', { key: deleting.key });
          await roles.reload();
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>
          {deleting?.memberCount
            ? `${deleting.memberCount} member(s) hold ${deleting.name} and lose its permissions from their next request.`
            : `Nobody holds ${deleting?.name ?? 'this role'}.`}
        </p>
      </ConfirmDialog>
    </section>
  );
}
