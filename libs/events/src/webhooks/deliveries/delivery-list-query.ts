import type { EndpointOwner } from '../endpoints/endpoint-owner';
import type { DeliveryCursor } from './delivery-cursor';
import { DELIVERY_COLUMNS } from './delivery-rows';
import type { DeliveryStatus } from './delivery-view';

export interface DeliveryListFilter {
  status?: DeliveryStatus;
  eventType?: string;
  /** ISO date-times: `created_at` in [since, until). */
  since?: string;
  until?: string;
}

export interface DeliveryListQuery {
  text: string;
  params: unknown[];
}

/** `e` (webhook_endpoints) belongs to the owner; written so both forms can use an index on organization_id. */
export function ownerCondition(owner: EndpointOwner): { sql: string; params: unknown[] } {
  return owner.organizationId === null
    ? { sql: 'e.organization_id IS NULL', params: [] }
    : { sql: 'e.organization_id = ?::uuid', params: [owner.organizationId] };
}

/**
 * One page of the deliveries of `endpointIds` (the owner's, at most 50), newest first, `limit`
 * rows (ask one more than the page to learn whether another follows).
 *
 * Why one branch per endpoint, each naming its endpoint as a value: every branch reads its
 * endpoint's newest rows from `webhook_deliveries_endpoint` (endpoint_id, created_at DESC, id DESC),
 * from the cursor on, and PostgreSQL merges the branches in order (Merge Append), so a page reads
 * about a page of index entries. With the endpoint as a value the planner also sees how busy that
 * endpoint is: a quiet organization's endpoint beside a platform endpoint that receives every event
 * is read by its own index, where `endpoint_id = ANY(...)` or a lateral join (planned for an
 * average endpoint) walked the whole log by time.
 */
export function buildDeliveryListQuery(
  endpointIds: readonly string[],
  filter: DeliveryListFilter,
  after: DeliveryCursor | null,
  limit: number,
): DeliveryListQuery {
  if (endpointIds.length === 0) throw new Error('buildDeliveryListQuery needs at least one endpoint');
  const conditions: string[] = [];
  const values: unknown[] = [];
  if (filter.status !== undefined) {
    conditions.push('d.status = ?');
    values.push(filter.status);
  }
  if (filter.eventType !== undefined) {
    conditions.push('d.event_type = ?');
    values.push(filter.eventType);
  }
  if (filter.since !== undefined) {
    conditions.push('d.created_at >= ?::timestamptz');
    values.push(filter.since);
  }
  if (filter.until !== undefined) {
    conditions.push('d.created_at < ?::timestamptz');
    values.push(filter.until);
  }
  if (after !== null) {
    conditions.push('(d.created_at, d.id) < (?::timestamptz, ?::uuid)');
    values.push(after.createdAt, after.id);
  }
  const where = ['d.endpoint_id = ?::uuid', ...conditions].join(' AND ');
  const branch = `(SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT ?)`;
  const params = endpointIds.flatMap((endpointId) => [endpointId, ...values, limit]);
  const text = `SELECT page.* FROM (${endpointIds.map(() => branch).join(' UNION ALL ')}) page
    ORDER BY page.created_at DESC, page.id DESC
    LIMIT ?`;
  return { text, params: [...params, limit] };
}
