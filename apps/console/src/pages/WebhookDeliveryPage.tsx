import { useEffect, useState } from 'react';
import type { PageProps } from '../app/pages';
import { formatDateTime } from '../app/format';
import { Link } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSignedIn } from '../session/session-context';
import { describeKeptBody, describeOutcome } from '../webhooks/delivery-format';
import { matchedAliases } from '../webhooks/subscription-patterns';

const PENDING_REFRESH_MS = 3000;

/** The event's type and the per-model names it also answers to, as the body sent carries them. */
function eventNames(event: Record<string, unknown>, type: string): { type: string; subscriptionAliases: string[] } {
  const aliases = event.subscriptionAliases;
  return { type, subscriptionAliases: Array.isArray(aliases) ? aliases.filter((alias): alias is string => typeof alias === 'string') : [] };
}

/** One delivery: what was sent, every attempt with its answer, and redelivery. */
export default function WebhookDeliveryPage({ params }: PageProps) {
  const id = params.id as string;
  const { rpc } = useSignedIn();
  const delivery = useRpcQuery('webhooks.deliveries.get', { id });
  const endpoints = useRpcQuery('webhooks.endpoints.list');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');
  const pending = delivery.data?.status === 'pending';

  const { reload } = delivery;
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => void reload(), PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [pending, reload, delivery.data]);

  if (delivery.error && !delivery.data) {
    return (
      <section>
        <p>
          <Link to="/webhooks/deliveries">← Delivery log</Link>
        </p>
        <ErrorNotice error={delivery.error} />
      </section>
    );
  }
  if (!delivery.data) return <p role="status">Loading…</p>;
  const shown = delivery.data;
  const endpoint = endpoints.data?.items.find((candidate) => candidate.id === shown.endpointId);
  const aliases = endpoint ? matchedAliases(eventNames(shown.event, shown.eventType), endpoint.subscriptions) : [];

  const redeliver = async () => {
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      await rpc.call('webhooks.deliveries.redeliver', { id });
      setNotice('Queued again: the next attempt is due now.');
      await delivery.reload();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to="/webhooks/deliveries">← Delivery log</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">
          Delivery of <code>{shown.eventType}</code>
        </h1>
        <button type="button" className="button button-primary" onClick={() => void redeliver()} disabled={busy || endpoint?.state === 'disabled'}>
          {busy ? 'Redelivering…' : 'Redeliver'}
        </button>
      </div>
      {endpoint?.state === 'disabled' ? <p className="field-hint">The endpoint is disabled: enable it before redelivering.</p> : null}
      <p role="status" className="copy-status">
        {notice}
      </p>
      <ErrorNotice error={error} />
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge badge-${shown.status}`}>{shown.status}</span>
          {shown.nextAttemptAt ? ` · next attempt ${formatDateTime(shown.nextAttemptAt)}` : ''}
        </dd>
        {aliases.length > 0 ? (
          <>
            <dt>Subscribed as</dt>
            <dd>
              {aliases.map((alias, index) => (
                <span key={alias}>
                  {index > 0 ? ', ' : null}
                  <code>{alias}</code>
                </span>
              ))}
              <span className="choice-description">The endpoint subscribed to this model’s name for the event; it is delivered under its general type.</span>
            </dd>
          </>
        ) : null}
        <dt>Endpoint</dt>
        <dd>
          <code className="url-clip" title={endpoint?.url ?? shown.endpointId}>{endpoint?.url ?? shown.endpointId}</code>
        </dd>
        <dt>Created</dt>
        <dd>{formatDateTime(shown.createdAt)}</dd>
        <dt>Last result</dt>
        <dd className="wrap">{describeOutcome(shown, shown.attempts.at(-1)?.responseBody)}</dd>
        <dt>Delivery id</dt>
        <dd>
          <code>{shown.id}</code>
        </dd>
        <dt>Idempotency key</dt>
        <dd>
          <code>{shown.idempotencyKey}</code>
        </dd>
      </dl>

      <h2 className="section">Attempts</h2>
      {shown.attempts.length === 0 ? (
        <p className="empty">No attempt yet.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Attempts" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Attempts, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Result</th>
                <th scope="col">Response (up to 4 KiB kept)</th>
              </tr>
            </thead>
            <tbody>
              {shown.attempts.map((attempt) => (
                <tr key={attempt.attempt}>
                  <th scope="row">{attempt.attempt}</th>
                  <td>{formatDateTime(attempt.startedAt)}</td>
                  <td>{attempt.durationMs} ms</td>
                  <td className="wrap">
                    {attempt.statusCode !== null ? <span className={`badge badge-${attempt.statusCode < 300 ? 'succeeded' : 'failed'}`}>HTTP {attempt.statusCode}</span> : null}
                    {attempt.error && attempt.error !== `HTTP ${attempt.statusCode}` ? <span className="choice-description">{attempt.error}</span> : null}
                  </td>
                  <td className="wrap">
                    {attempt.responseBody ? (
                      <details>
                        <summary>{describeKeptBody(attempt.responseBody)}</summary>
                        <pre className="excerpt">{attempt.responseBody}</pre>
                      </details>
                    ) : (
                      <span className="choice-description">Empty</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h2 className="section">{shown.status === 'filtered' ? 'The event, not sent' : 'What was sent'}</h2>
      {shown.status === 'filtered' && <p>The endpoint acts as someone who may not read this record, so the event was never sent to it.</p>}
      {shown.payloadWithheld && <p>Its payload is left out: the event is about a record you may not read.</p>}
      <pre className="excerpt" tabIndex={0} aria-label="The event sent as the body">
        {JSON.stringify(shown.event, null, 2)}
      </pre>
    </section>
  );
}
