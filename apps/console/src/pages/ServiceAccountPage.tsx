import { useEffect, useState } from 'react';
import type { PageProps } from '../app/pages';
import { Link, navigate } from '../app/router';
import { formatDateTime } from '../app/format';
import { useRpcQuery } from '../api/use-rpc-query';
import type { ApiKey, ServiceAccount } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { CheckboxGroup } from '../forms/fields';
import { CreateKeyDialog } from '../keys/CreateKeyDialog';
import { KeyTable } from '../keys/KeyTable';
import { useOwnPermissionOptions } from '../keys/use-permission-options';
import { useSignedIn } from '../session/session-context';
import { grantableRoleOptions } from './ServiceAccountsPage';

/** One service account: its roles, its keys, disable or enable, delete. */
export default function ServiceAccountPage({ params }: PageProps) {
  const id = params.id as string;
  const { rpc, permissions } = useSignedIn();
  const accounts = useRpcQuery('serviceAccounts.list');
  const keys = useRpcQuery('serviceAccounts.keys.list', { serviceAccountId: id });
  const grantable = useOwnPermissionOptions(permissions);
  const account = accounts.data?.items.find((candidate) => candidate.id === id);
  const [creatingKey, setCreatingKey] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey>();
  const [confirming, setConfirming] = useState<'disable' | 'delete'>();
  const [error, setError] = useState<unknown>();

  if (accounts.error) return <ErrorNotice error={accounts.error} />;
  if (!accounts.data) return <p role="status">Loading…</p>;
  if (!account) {
    return (
      <section>
        <h1>Service account not found</h1>
        <p>
          It may have been deleted. <Link to="/service-accounts">Back to service accounts</Link>
        </p>
      </section>
    );
  }

  const enable = async () => {
    setError(undefined);
    try {
      await rpc.call('serviceAccounts.enable', { id });
      await accounts.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to="/service-accounts">← Service accounts</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">{account.displayName}</h1>
        <div className="button-row">
          {account.status === 'active' ? (
            <button type="button" className="button" onClick={() => setConfirming('disable')}>
              Disable
            </button>
          ) : (
            <button type="button" className="button" onClick={() => void enable()}>
              Enable
            </button>
          )}
          <button type="button" className="button button-danger-quiet" onClick={() => setConfirming('delete')}>
            Delete
          </button>
        </div>
      </div>
      <p className="page-intro">
        {account.description ? `${account.description} · ` : ''}
        <span className={`badge badge-${account.status}`}>{account.status}</span> · created {formatDateTime(account.createdAt)} ·{' '}
        <code>{account.id}</code>
      </p>
      <ErrorNotice error={error} />

      {permissions.has('rbac.manage') ? <RolesEditor account={account} onChanged={() => void accounts.reload()} /> : null}

      <div className="page-header section">
        <h2>API keys</h2>
        <button type="button" className="button button-primary" onClick={() => setCreatingKey(true)} disabled={account.status !== 'active'}>
          Create key
        </button>
      </div>
      <ErrorNotice error={keys.error} />
      {keys.data ? <KeyTable keys={keys.data.items} caption={`API keys of ${account.displayName}`} onRevoke={setRevoking} /> : null}

      <CreateKeyDialog
        open={creatingKey}
        title={`Create a key for ${account.displayName}`}
        actsAs={account.displayName}
        grantable={grantable}
        create={(input) => rpc.call('serviceAccounts.keys.create', { serviceAccountId: id, ...input })}
        onClose={(created) => {
          setCreatingKey(false);
          if (created) void keys.reload();
        }}
      />
      <ConfirmDialog
        open={revoking !== undefined}
        title="Revoke API key?"
        confirmLabel="Revoke key"
        danger
        onConfirm={async () => {
          if (!revoking) return;
          await rpc.call('serviceAccounts.keys.revoke', { serviceAccountId: id, id: revoking.id });
          await keys.reload();
        }}
        onClose={() => setRevoking(undefined)}
      >
        <p>
          Programs using <strong>{revoking?.name}</strong> are refused from their next request on. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'disable'}
        title={`Disable ${account.displayName}?`}
        confirmLabel="Disable"
        danger
        onConfirm={async () => {
          await rpc.call('serviceAccounts.disable', { id });
          await accounts.reload();
        }}
        onClose={() => setConfirming(undefined)}
      >
        <p>All its keys stop working at once. Enabling it again brings back the keys that are neither revoked nor expired.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'delete'}
        title={`Delete ${account.displayName}?`}
        confirmLabel="Delete service account"
        danger
        onConfirm={async () => {
          await rpc.call('serviceAccounts.delete', { id });
          navigate('/service-accounts');
        }}
        onClose={() => setConfirming(undefined)}
      >
        <p>Its roles go and all its keys are revoked. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

/** The account's roles as checkboxes; saving assigns what was added and revokes what was removed. */
function RolesEditor({ account, onChanged }: { account: ServiceAccount; onChanged: () => void }) {
  const { rpc, permissions } = useSignedIn();
  const roles = useRpcQuery('rbac.roles.list');
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(account.roleKeys));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const held = account.roleKeys.join(',');
  useEffect(() => setChosen(new Set(held ? held.split(',') : [])), [held]);

  // Roles the account holds stay listed even when the editor may not grant them (shown, not offered as changes).
  const options = grantableRoleOptions(roles.data?.items ?? [], permissions);
  const offered = new Set(options.map((option) => option.value));
  const changed = [...chosen].some((key) => !account.roleKeys.includes(key)) || account.roleKeys.some((key) => !chosen.has(key));

  const save = async () => {
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      for (const roleKey of [...chosen].filter((key) => !account.roleKeys.includes(key))) {
        await rpc.call('rbac.roles.assign', { userId: account.id, roleKey });
      }
      for (const roleKey of account.roleKeys.filter((key) => !chosen.has(key) && offered.has(key))) {
        await rpc.call('rbac.roles.revoke', { userId: account.id, roleKey });
      }
      setSaved(true);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
      onChanged();
    }
  };

  return (
    <div className="card">
      <CheckboxGroup label="Roles" hint="Roles holding a permission you lack are not listed." values={chosen} options={options} onChange={setChosen} />
      {account.roleKeys.filter((key) => !offered.has(key)).length > 0 ? (
        <p className="field-hint">Also holds: {account.roleKeys.filter((key) => !offered.has(key)).join(', ')}</p>
      ) : null}
      <ErrorNotice error={error} />
      <button type="button" className="button" disabled={!changed || busy} onClick={() => void save()}>
        {busy ? 'Saving…' : 'Save roles'}
      </button>
      <span role="status" className="copy-status">
        {saved && !changed ? 'Roles saved' : ''}
      </span>
    </div>
  );
}
