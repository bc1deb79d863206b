import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { formatDateTime } from '../app/format';
import { Link } from '../app/router';
import { useKeysetPages } from '../api/use-keyset-pages';
import { useRpcQuery } from '../api/use-rpc-query';
import { DELIVERY_STATUSES } from '../api/webhook-types';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField, TextField } from '../forms/fields';
import { describeOutcome } from '../webhooks/delivery-format';
import { DELIVERY_PAGE_SIZE, checkDeliveryFilters, filtersFromSearch, filtersToSearch, type DeliveryFilterValues, type DeliveryListInput } from '../webhooks/delivery-filters';
import { SubscribedAs } from '../webhooks/SubscribedAs';
import { isNeverDelivered, possibleAliases } from '../webhooks/subscription-patterns';
import { useEventTypes } from '../webhooks/use-catalog';

/** How long pending deliveries wait before the list looks at them again. */
const PENDING_REFRESH_MS = 3000;

/** The delivery log: every delivery to the organization's endpoints, newest first, filtered, page by page. */
export default function WebhookDeliveriesPage() {
  const endpoints = useRpcQuery('webhooks.endpoints.list');
  const catalog = useEventTypes();
  const [draft, setDraft] = useState<DeliveryFilterValues>(() => filtersFromSearch(location.search));
  const [applied, setApplied] = useState<DeliveryListInput | undefined>(() => checkDeliveryFilters(filtersFromSearch(location.search)).input);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const log = useKeysetPages('webhooks.deliveries.list', applied);
  const urls = useMemo(() => new Map((endpoints.data?.items ?? []).map((endpoint) => [endpoint.id, endpoint.url])), [endpoints.data]);
  const subscriptions = useMemo(() => new Map((endpoints.data?.items ?? []).map((endpoint) => [endpoint.id, endpoint.subscriptions])), [endpoints.data]);
  const anyPending = log.items.some((delivery) => delivery.status === 'pending');

  const { refresh } = log;
  const olderPagesShown = log.items.length > DELIVERY_PAGE_SIZE;
  useEffect(() => {
    // Not once older pages are shown: a refresh would drop them.
    if (!anyPending || olderPagesShown) return;
    const timer = setTimeout(() => void refresh(), PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [anyPending, olderPagesShown, refresh, log.items]);

  const set = <K extends keyof DeliveryFilterValues>(key: K, value: DeliveryFilterValues[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const apply = (values: DeliveryFilterValues) => {
    const checked = checkDeliveryFilters(values);
    setErrors(checked.errors);
    if (!checked.input) return;
    history.replaceState(null, '', `${location.pathname}${filtersToSearch(values)}`);
    setApplied(checked.input);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply(draft);
  };
  const clear = () => {
    const none = { endpointId: '', status: '' as const, eventType: '', since: '', until: '' };
    setDraft(none);
    apply(none);
  };

  const endpointOptions = [{ value: '', label: 'Any endpoint' }, ...(endpoints.data?.items ?? []).map((endpoint) => ({ value: endpoint.id, label: endpoint.url }))];
  const typeOptions = [
    { value: '', label: 'Any event type' },
    ...[...new Set([...catalog.types.filter((type) => !isNeverDelivered(type)), ...(draft.eventType ? [draft.eventType] : [])])].map((type) => ({ value: type, label: type })),
  ];
  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to="/webhooks">← Webhooks</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">Delivery log</h1>
        <button type="button" className="button" onClick={() => void log.refresh()} disabled={log.loading}>
          Refresh
        </button>
      </div>
      <form className="card filters" onSubmit={submit} noValidate aria-label="Filter deliveries">
        <SelectField label="Endpoint" value={draft.endpointId} options={endpointOptions} onChange={(endpointId) => set('endpointId', endpointId)} />
        <SelectField
          label="Status"
          value={draft.status}
          options={[{ value: '' as const, label: 'Any status' }, ...DELIVERY_STATUSES.map((status) => ({ value: status, label: status }))]}
          onChange={(status) => set('status', status)}
        />
        <SelectField label="Event type" value={draft.eventType} options={typeOptions} onChange={(eventType) => set('eventType', eventType)} />
        <TextField label="Created from" type="datetime-local" value={draft.since} onChange={(since) => set('since', since)} error={errors.since} />
        <TextField label="Created before" type="datetime-local" value={draft.until} onChange={(until) => set('until', until)} error={errors.until} />
        <div className="button-row filters-actions">
          <button type="submit" className="button button-primary">
            Apply filters
          </button>
          <button type="button" className="button" onClick={clear}>
            Clear
          </button>
        </div>
      </form>
      <ErrorNotice error={endpoints.error} />
      <ErrorNotice error={log.error} />
      {log.items.length === 0 ? (
        log.loading ? (
          <p role="status">Loading…</p>
        ) : (
          <p className="empty">No deliveries{applied && Object.keys(applied).length > 1 ? ' match these filters' : ' yet'}.</p>
        )
      ) : (
        <div className="table-wrap" role="region" aria-label="Deliveries" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event type</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last result</th>
              </tr>
            </thead>
            <tbody>
              {log.items.map((delivery) => (
                <tr key={delivery.id}>
                  <th scope="row">
                    <Link to={`/webhooks/deliveries/${encodeURIComponent(delivery.id)}`} aria-label={`Delivery of ${delivery.eventType} at ${formatDateTime(delivery.createdAt)}`}>
                      {formatDateTime(delivery.createdAt)}
                    </Link>
                  </th>
                  <td>
                    <code>{delivery.eventType}</code>
                    <SubscribedAs aliases={possibleAliases(delivery.eventType, subscriptions.get(delivery.endpointId) ?? [])} />
                    <span className="choice-description">
                      to <code className="url-clip" title={urls.get(delivery.endpointId) ?? delivery.endpointId}>{urls.get(delivery.endpointId) ?? delivery.endpointId}</code>
                    </span>
                  </td>
                  <td>
                    <span className={`badge badge-${delivery.status}`}>{delivery.status}</span>
                    {delivery.nextAttemptAt ? <span className="choice-description">next {formatDateTime(delivery.nextAttemptAt)}</span> : null}
                  </td>
                  <td>{delivery.attemptCount}</td>
                  <td className="wrap">{describeOutcome(delivery)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.hasMore ? (
        <p>
          <button type="button" className="button" onClick={() => void log.loadMore()} disabled={log.loading}>
            {log.loading ? 'Loading…' : 'Load older deliveries'}
          </button>
        </p>
      ) : null}
    </section>
  );
}
