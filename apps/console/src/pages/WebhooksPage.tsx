import { useState } from 'react';
import { formatDateTime } from '../app/format';
import { Link } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import type { WebhookEndpoint } from '../api/webhook-types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { EmptyState } from '../components/EmptyState';
import { useSignedIn } from '../session/session-context';
import { EndpointDialog } from '../webhooks/EndpointDialog';
import { RecoverDialog } from '../webhooks/RecoverDialog';
import { RotateSecretDialog } from '../webhooks/RotateSecretDialog';

type Confirming = { action: 'disable' | 'delete'; endpoint: WebhookEndpoint };

/** The organization's webhook endpoints: add, edit, rotate the secret, disable or enable, re-send, delete. */
export default function WebhooksPage() {
  const { rpc } = useSignedIn();
  const endpoints = useRpcQuery('webhooks.endpoints.list');
  const [editing, setEditing] = useState<WebhookEndpoint | 'new'>();
  const [rotating, setRotating] = useState<WebhookEndpoint>();
  const [recovering, setRecovering] = useState<WebhookEndpoint>();
  const [confirming, setConfirming] = useState<Confirming>();
  const [error, setError] = useState<unknown>();

  const enable = async (endpoint: WebhookEndpoint) => {
    setError(undefined);
    try {
      await rpc.call('webhooks.endpoints.enable', { id: endpoint.id });
      await endpoints.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Webhooks</h1>
        <div className="button-row">
          <Link className="button" to="/webhooks/deliveries">
            Delivery log
          </Link>
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
            Add endpoint
          </button>
        </div>
      </div>
      <p className="page-intro">
        Each event this organization’s changes cause is POSTed, signed, to every enabled endpoint subscribed to it, and retried up
        to 5 times. Five failed attempts in a row disable an endpoint.
      </p>
      <ErrorNotice error={endpoints.error} />
      <ErrorNotice error={error} />
      {endpoints.data ? (
        endpoints.data.items.length === 0 ? (
          <EmptyState
            title="No endpoints yet."
            actions={
              <button type="button" className="button" onClick={() => setEditing('new')}>
                Add your first endpoint
              </button>
            }
          >
            Add the URL of your service to have this organization’s events (a record created, a card moved) sent to it as they happen.
          </EmptyState>
        ) : (
          <div className="table-wrap" role="region" aria-label="Webhook endpoints" tabIndex={0}>
            <table>
              <caption className="visually-hidden">Webhook endpoints</caption>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Events</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="row-actions">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {endpoints.data.items.map((endpoint) => (
                  <tr key={endpoint.id}>
                    <th scope="row" className="wrap">
                      <code className="url-clip" title={endpoint.url}>{endpoint.url}</code>
                      {endpoint.description ? <span className="choice-description">{endpoint.description}</span> : null}
                      <span className="choice-description">Added {formatDateTime(endpoint.createdAt)}</span>
                    </th>
                    <td className="wrap">
                      <code>{endpoint.subscriptions.join(', ')}</code>
                    </td>
                    <td className="wrap">
                      <span className={`badge badge-${endpoint.state === 'enabled' ? 'active' : 'disabled'}`}>{endpoint.state}</span>
                      {endpoint.state === 'disabled' && endpoint.disabledReason ? <span className="choice-description">{endpoint.disabledReason}</span> : null}
                      {endpoint.consecutiveFailures > 0 ? (
                        <span className="choice-description">
                          {endpoint.consecutiveFailures} failed attempt{endpoint.consecutiveFailures === 1 ? '' : 's'} in a row
                        </span>
                      ) : null}
                      {endpoint.signingSecretStored ? null : <span className="field-error">Secret not stored: deliveries cannot be signed; rotate it</span>}
                      {endpoint.previousSecretExpiresAt ? (
                        <span className="choice-description">Old secret signs too until {formatDateTime(endpoint.previousSecretExpiresAt)}</span>
                      ) : null}
                    </td>
                    <td className="actions-cell row-actions">
                      <div className="button-row">
                        <Link className="button button-small" to={`/webhooks/deliveries?endpoint=${encodeURIComponent(endpoint.id)}`} aria-label={`Deliveries to ${endpoint.url}`}>
                          Deliveries
                        </Link>
                        <button type="button" className="button button-small" onClick={() => setEditing(endpoint)} aria-label={`Edit ${endpoint.url}`}>
                          Edit
                        </button>
                        <button type="button" className="button button-small" onClick={() => setRotating(endpoint)} aria-label={`Rotate the secret of ${endpoint.url}`}>
                          Rotate secret
                        </button>
                        {endpoint.state === 'enabled' ? (
                          <>
                            <button type="button" className="button button-small" onClick={() => setRecovering(endpoint)} aria-label={`Re-send failed deliveries to ${endpoint.url}`}>
                              Re-send failed
                            </button>
                            <button type="button" className="button button-small" onClick={() => setConfirming({ action: 'disable', endpoint })} aria-label={`Disable ${endpoint.url}`}>
                              Disable
                            </button>
                          </>
                        ) : (
                          <button type="button" className="button button-small" onClick={() => void enable(endpoint)} aria-label={`Enable ${endpoint.url}`}>
                            Enable
                          </button>
                        )}
                        <button type="button" className="button button-small button-danger-quiet" onClick={() => setConfirming({ action: 'delete', endpoint })} aria-label={`Delete ${endpoint.url}`}>
                          Delete
                        </button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : endpoints.loading ? (
        <p role="status">Loading…</p>
      ) : null}

      <EndpointDialog
        open={editing !== undefined}
        endpoint={editing === 'new' ? undefined : editing}
        onClose={(changed) => {
          setEditing(undefined);
          if (changed) void endpoints.reload();
        }}
      />
      <RotateSecretDialog
        endpoint={rotating}
        onClose={(rotated) => {
          setRotating(undefined);
          if (rotated) void endpoints.reload();
        }}
      />
      <RecoverDialog endpoint={recovering} onClose={() => setRecovering(undefined)} />
      <ConfirmDialog
        open={confirming?.action === 'disable'}
        title="Disable endpoint?"
        confirmLabel="Disable endpoint"
        danger
        onConfirm={async () => {
          if (!confirming) return;
          await rpc.call('webhooks.endpoints.disable', { id: confirming.endpoint.id });
          await endpoints.reload();
        }}
        onClose={() => setConfirming(undefined)}
      >
        <p>
          Nothing is queued for <strong>{confirming?.endpoint.url}</strong> while it is disabled, and what is queued fails. Events in
          between are never sent to it, even after it is enabled again.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming?.action === 'delete'}
        title="Delete endpoint?"
        confirmLabel="Delete endpoint"
        danger
        onConfirm={async () => {
          if (!confirming) return;
          await rpc.call('webhooks.endpoints.delete', { id: confirming.endpoint.id });
          await endpoints.reload();
        }}
        onClose={() => setConfirming(undefined)}
      >
        <p>
          <strong>{confirming?.endpoint.url}</strong> and its delivery log are deleted, and queued deliveries to it are dropped. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
