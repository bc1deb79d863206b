import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, defineProcedure, notFound, validationFailed, type JobQueue } from '@mrp/platform';
import { endpointOwner, type EndpointOwner } from '../endpoints/endpoint-owner';
import { DEFAULT_DELIVERY_PAGE_SIZE, DeliveriesListInput, DeliveryByIdInput, EndpointsRecoverInput } from './delivery-inputs';
import { decodeDeliveryCursor, encodeDeliveryCursor } from './delivery-cursor';
import { buildDeliveryListQuery, ownerCondition } from './delivery-list-query';
import { deliveryJob, type DeliveryToQueue } from './delivery-queue';
import { DELIVERY_COLUMNS, toAttemptView, toDeliveryView, type AttemptRow, type DeliveryRow } from './delivery-rows';
import { DeliveryDetailSchema, DeliveryPageSchema, DeliveryViewSchema, RecoveredDeliveriesSchema } from './delivery-view';
import { DEFAULT_WEBHOOK_RETENTION_DAYS } from './prune-deliveries';
import { mayReadEventRecord } from './webhook-outbox';

export interface DeliveryLogProcedureDeps {
  /** WEBHOOK_RETENTION_DAYS: recover refuses a window reaching further back than the log is kept. */
  retentionDays?: number;
  /** Queues the job of each delivery sent again. */
  jobs: Pick<JobQueue, 'enqueueAtCommit'>;
  jobExpirySeconds: number;
}

/**
 * Sends a delivery again as a fresh round: the same id, body and idempotency key, 5 attempts
 * (`attempts_left`'s column default), due now. `attempt_count` goes on counting, so the attempts of
 * every round stay in the log and `Webhook-Attempt` keeps rising.
 */
const REQUEUE = `status = 'pending', attempts_left = DEFAULT, next_attempt_at = now(), completed_at = NULL,
  locked_until = NULL, updated_at = now()`;

interface EndpointState {
  state: 'enabled' | 'disabled';
}

/** The owner's endpoint; someone else's is missing, as an unknown id is. */
async function ownEndpoint(em: EntityManager, owner: EndpointOwner, id: string): Promise<EndpointState> {
  const owned = ownerCondition(owner);
  const [row] = await em.execute<EndpointState[]>(`SELECT e.state FROM webhook_endpoints e WHERE e.id = ?::uuid AND ${owned.sql}`, [
    id,
    ...owned.params,
  ]);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

const disabledEndpoint = () =>
  conflict('The endpoint is disabled, so nothing would be sent: enable it (webhooks.endpoints.enable) first');

function checkWindow(since: string | undefined, until: string | undefined): void {
  if (since !== undefined && until !== undefined && Date.parse(since) >= Date.parse(until)) {
    throw validationFailed([{ field: 'until', code: 'out_of_range', message: 'must be after since' }]);
  }
}

export function createDeliveryLogProcedures({ retentionDays = DEFAULT_WEBHOOK_RETENTION_DAYS, jobs, jobExpirySeconds }: DeliveryLogProcedureDeps) {
  const list = defineProcedure({
    name: 'webhooks.deliveries.list',
    summary: 'The delivery log: deliveries to your endpoints, newest first, filtered and paginated',
    scope: 'user',
    permission: null,
    readOnly: true,
    input: DeliveriesListInput,
    output: DeliveryPageSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      checkWindow(input.since, input.until);
      const after = input.cursor === undefined ? null : decodeDeliveryCursor(input.cursor);
      const owned = ownerCondition(owner);
      const endpoints = await ctx.em.execute<Array<{ id: string }>>(
        `SELECT e.id FROM webhook_endpoints e WHERE ${owned.sql}${input.endpointId === undefined ? '' : ' AND e.id = ?::uuid'} ORDER BY e.id`,
        [...owned.params, ...(input.endpointId === undefined ? [] : [input.endpointId])],
      );
      if (input.endpointId !== undefined && endpoints.length === 0) throw notFound('Webhook endpoint');
      if (endpoints.length === 0) return { items: [], nextCursor: null };
      const limit = input.limit ?? DEFAULT_DELIVERY_PAGE_SIZE;
      // One row past the page tells whether another follows, without a count.
      const query = buildDeliveryListQuery(
        endpoints.map((endpoint) => endpoint.id),
        input,
        after,
        limit + 1,
      );
      const rows = await ctx.em.execute<DeliveryRow[]>(query.text, query.params);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map(toDeliveryView),
        nextCursor: rows.length > limit ? encodeDeliveryCursor({ createdAt: last.created_at_key, id: last.id }) : null,
      };
    },
  });

  const get = defineProcedure({
    name: 'webhooks.deliveries.get',
    summary: 'One delivery with the event it carries and every attempt, oldest first',
    scope: 'user',
    permission: null,
    readOnly: true,
    input: DeliveryByIdInput,
    output: DeliveryDetailSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      const owned = ownerCondition(owner);
      const [row] = await ctx.em.execute<Array<DeliveryRow & { body: string; record_access_role_ids: string[] | null }>>(
        `SELECT ${DELIVERY_COLUMNS}, b.body, d.record_access_role_ids::text[] AS record_access_role_ids
           FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_event_bodies b ON b.event_id = d.event_id
          WHERE d.id = ?::uuid AND ${owned.sql}`,
        [input.id, ...owned.params],
      );
      if (!row) throw notFound('Webhook delivery');
      const attempts = await ctx.em.execute<AttemptRow[]>(
        `SELECT attempt, started_at, duration_ms, status_code, error, response_headers, response_body
           FROM webhook_delivery_attempts WHERE delivery_id = ?::uuid ORDER BY attempt`,
        [input.id],
      );
      const event = JSON.parse(row.body) as Record<string, unknown>;
      // The log is read by whoever manages webhooks; a record's data is only for those who may read the record.
      const recordAccess = row.record_access_role_ids === null ? undefined : { roleIds: row.record_access_role_ids };
      const reader = owner.organizationId === null ? { roleIds: [], permissions: ['records.read'] } : { roleIds: ctx.principal.roleIds, permissions: [...ctx.principal.permissions] };
      // The body is the event's, shared by its deliveries: a filtered one never shows the payload,
      // whoever reads it, as it never sent it.
      const payloadWithheld = row.status === 'filtered' || !mayReadEventRecord({ recordAccess }, reader);
      if (payloadWithheld) delete event.payload;
      return { ...toDeliveryView(row), event, payloadWithheld, attempts: attempts.map(toAttemptView) };
    },
  });

  const redeliver = defineProcedure({
    name: 'webhooks.deliveries.redeliver',
    summary: 'Send a delivery again now, with the same idempotency key and a fresh round of 5 attempts',
    scope: 'user',
    permission: null,
    input: DeliveryByIdInput,
    output: DeliveryViewSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      const owned = ownerCondition(owner);
      // One statement, so a worker's claim cannot slip between a check and the change: a claim that
      // commits first leaves `locked_until` ahead and this matches nothing.
      const [row] = await ctx.em.execute<Array<DeliveryRow & Pick<DeliveryToQueue, 'delivery_queue' | 'organization_id'>>>(
        `UPDATE webhook_deliveries d SET ${REQUEUE}
           FROM webhook_endpoints e
          WHERE d.id = ?::uuid AND e.id = d.endpoint_id AND ${owned.sql} AND e.state = 'enabled' AND d.status <> 'filtered'
            AND (d.locked_until IS NULL OR d.locked_until <= now())
          RETURNING ${DELIVERY_COLUMNS}, d.organization_id, e.delivery_queue`,
        [input.id, ...owned.params],
      );
      if (!row) {
        const [found] = await ctx.em.execute<Array<{ held: boolean; state: 'enabled' | 'disabled'; status: string }>>(
          `SELECT d.locked_until > now() AS held, e.state, d.status FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.id = ?::uuid AND ${owned.sql}`,
          [input.id, ...owned.params],
        );
        if (!found) throw notFound('Webhook delivery');
        if (found.status === 'filtered') throw conflict("The delivery was filtered: the endpoint's principal may not read the event's record, so it is never sent");
        if (found.state !== 'enabled') throw disabledEndpoint();
        throw conflict('A worker is sending this delivery right now; try again when the attempt is over');
      }
      await jobs.enqueueAtCommit(ctx.em, [deliveryJob({ ...row, id: input.id }, jobExpirySeconds)], { wake: true });
      return toDeliveryView(row);
    },
  });

  const recover = defineProcedure({
    name: 'webhooks.endpoints.recover',
    summary: "Re-queue every failed delivery of an endpoint created in [since, until), e.g. after fixing the receiver",
    scope: 'user',
    permission: null,
    input: EndpointsRecoverInput,
    output: RecoveredDeliveriesSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      checkWindow(input.since, input.until);
      const oldest = Date.now() - retentionDays * 24 * 3600 * 1000;
      if (Date.parse(input.since) < oldest) {
        throw validationFailed([
          { field: 'since', code: 'out_of_range', message: `must be within the last ${retentionDays} days: older deliveries are not kept` },
        ]);
      }
      const endpoint = await ownEndpoint(ctx.em, owner, input.id);
      if (endpoint.state !== 'enabled') throw disabledEndpoint();
      const window = input.until === undefined ? '' : 'AND d.created_at < ?::timestamptz';
      // Failed deliveries are never held by a worker (it claims pending ones only): no lock to respect.
      // Each gets a job: its earlier ones are settled.
      // The endpoint's window is a range of `webhook_deliveries_endpoint`.
      const requeued = await ctx.em.execute<DeliveryToQueue[]>(
        `UPDATE webhook_deliveries d SET ${REQUEUE}
           FROM webhook_endpoints e
          WHERE d.endpoint_id = ?::uuid AND e.id = d.endpoint_id AND d.status = 'failed' AND d.created_at >= ?::timestamptz ${window}
          RETURNING d.id, d.organization_id, e.delivery_queue, d.next_attempt_at`,
        [input.id, input.since, ...(input.until === undefined ? [] : [input.until])],
      );
      await jobs.enqueueAtCommit(ctx.em, requeued.map((delivery) => deliveryJob(delivery, jobExpirySeconds)), { wake: true });
      return { requeued: requeued.length };
    },
  });

  return [list, get, redeliver, recover];
}
