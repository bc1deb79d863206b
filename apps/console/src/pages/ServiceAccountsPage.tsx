import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../app/format';
import { Link, navigate } from '../app/router';
import { fieldErrorsOf } from '../api/rpc-error';
import { useRpcQuery } from '../api/use-rpc-query';
import type { Role, ServiceAccount } from '../api/types';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { EmptyState } from '../components/EmptyState';
import { CheckboxGroup, TextAreaField, TextField } from '../forms/fields';
import { checkText, collectErrors } from '../forms/text-rules';
import { useSignedIn } from '../session/session-context';
import { FormFooter } from '../components/FormFooter';

/** The organization's service accounts: machine members with roles of their own and their own keys. */
export default function ServiceAccountsPage() {
  const accounts = useRpcQuery('serviceAccounts.list');
  const [creating, setCreating] = useState(false);

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Service accounts</h1>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
          Create service account
        </button>
      </div>
      <p className="page-intro">
        A service account belongs to the organization, not to a person: its keys keep working when people leave, and it holds
        only the roles you give it. Disabling it stops all its keys at once.
      </p>
      <ErrorNotice error={accounts.error} />
      {accounts.data ? (
        accounts.data.items.length === 0 ? (
          <EmptyState
            title="No service accounts yet."
            actions={
              <button type="button" className="button" onClick={() => setCreating(true)}>
                Create your first service account
              </button>
            }
          >
            Make one for each program (an importer, a sync), so its keys keep working when people come and go.
          </EmptyState>
        ) : (
          <div className="table-wrap" role="region" aria-label="Service accounts" tabIndex={0}>
            <table>
              <caption className="visually-hidden">Service accounts</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Roles</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.items.map((account) => (
                  <tr key={account.id}>
                    <th scope="row">
                      <Link to={`/service-accounts/${encodeURIComponent(account.id)}`}>{account.displayName}</Link>
                      {account.description ? <span className="choice-description">{account.description}</span> : null}
                    </th>
                    <td>{account.roleKeys.length ? account.roleKeys.join(', ') : 'No roles'}</td>
                    <td>
                      <span className={`badge badge-${account.status}`}>{account.status}</span>
                    </td>
                    <td>{formatDateTime(account.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : accounts.loading ? (
        <p role="status">Loading…</p>
      ) : null}
      <CreateServiceAccountDialog
        open={creating}
        onClose={(created) => {
          setCreating(false);
          if (created) navigate(`/service-accounts/${encodeURIComponent(created.id)}`);
        }}
      />
    </section>
  );
}

/** Roles of the organization as options; only those whose every permission the granter holds can be given. */
export function grantableRoleOptions(roles: Role[], permissions: ReadonlySet<string>) {
  return roles
    .filter((role) => role.permissions.every((permission) => permissions.has(permission)))
    .map((role) => ({ value: role.key, label: role.key, description: `${role.name}: ${role.description}` }));
}

function CreateServiceAccountDialog({ open, onClose }: { open: boolean; onClose: (created?: ServiceAccount) => void }) {
  const { rpc, permissions } = useSignedIn();
  const mayGrant = permissions.has('rbac.manage');
  const roles = useRpcQuery('rbac.roles.list', {}, { enabled: open && mayGrant });
  const [displayName, setDisplayName] = useState('');
  const [description, setDescription] = useState('');
  const [roleKeys, setRoleKeys] = useState<Set<string>>(new Set());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const close = (created?: ServiceAccount) => {
    setDisplayName('');
    setDescription('');
    setRoleKeys(new Set());
    setErrors({});
    setError(undefined);
    onClose(created);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = collectErrors({
      displayName: checkText(displayName, { required: true, maxLength: 100 }),
      description: checkText(description, { maxLength: 1000 }),
    });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(undefined);
    try {
      const created = await rpc.call('serviceAccounts.create', {
        displayName: displayName.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(roleKeys.size ? { roleKeys: [...roleKeys].sort() } : {}),
      });
      close(created);
    } catch (failure) {
      setError(failure);
      setErrors(fieldErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title="Create service account"
      onClose={() => close()}
      busy={busy}
      footer={<FormFooter formId="create-service-account" busy={busy} onCancel={() => close()} label="Create service account" busyLabel="Creating…" />}
    >
      <form id="create-service-account" onSubmit={(event) => void submit(event)} noValidate>
        <ErrorNotice error={error} />
        <TextField label="Name" hint="What it is for, e.g. “Nightly import”" value={displayName} onChange={setDisplayName} error={errors.displayName} maxLength={100} required data-autofocus />
        <TextAreaField label="Description" value={description} onChange={setDescription} error={errors.description} rows={2} maxLength={1000} />
        {mayGrant ? (
          <CheckboxGroup
            label="Roles"
            hint="Roles holding a permission you lack cannot be given. Roles can be changed later."
            values={roleKeys}
            options={grantableRoleOptions(roles.data?.items ?? [], permissions)}
            onChange={setRoleKeys}
            error={errors.roleKeys}
          />
        ) : (
          <p className="field-hint">Giving roles needs the rbac.manage permission; the account starts with none.</p>
        )}
      </form>
    </Dialog>
  );
}
