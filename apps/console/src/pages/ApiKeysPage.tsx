import { useState } from 'react';
import { useRpcQuery } from '../api/use-rpc-query';
import type { ApiKey } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { CreateKeyDialog } from '../keys/CreateKeyDialog';
import { KeyTable } from '../keys/KeyTable';
import { useOwnPermissionOptions } from '../keys/use-permission-options';
import { useSignedIn } from '../session/session-context';

/** The contract's account API-keys page: your own keys in the active organization. */
export default function ApiKeysPage() {
  const { rpc, permissions } = useSignedIn();
  const keys = useRpcQuery('apiKeys.list');
  const grantable = useOwnPermissionOptions(permissions);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey>();

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">API keys</h1>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
          Create API key
        </button>
      </div>
      <p className="page-intro">
        Keys let programs call the REST API (<code>/api/v1</code>) as you in this organization. A key never does more than you
        may: a limited one only what you chose, and both lose what you lose.
      </p>
      <ErrorNotice error={keys.error} />
      {keys.data ? <KeyTable keys={keys.data.items} caption="Your API keys" onRevoke={setRevoking} /> : keys.loading ? <p role="status">Loading…</p> : null}

      <CreateKeyDialog
        open={creating}
        title="Create API key"
        actsAs="you"
        grantable={grantable}
        create={(input) => rpc.call('apiKeys.create', input)}
        onClose={(created) => {
          setCreating(false);
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
          await rpc.call('apiKeys.revoke', { id: revoking.id });
          await keys.reload();
        }}
        onClose={() => setRevoking(undefined)}
      >
        <p>
          Programs using <strong>{revoking?.name}</strong> (<code>{revoking?.prefix}…</code>) are refused from their next request
          on. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
