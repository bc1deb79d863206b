import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { defineProcedure, sqlTextArray, type JobQueue, type PendingEvent } from '@mrp/platform';
import { createEvent } from '../../catalog/create-event';
import { ATTEMPTS_PER_ROUND, retryDelaySeconds } from './retry-schedule';
import { deliveryJob } from './delivery-queue';

/** What the delivery worker's system principal holds, and nothing else does. */
export const WEBHOOK_DELIVERY_PERMISSION = 'system.webhook-delivery';

/** Consecutive failed attempts after which an endpoint is disabled. */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 5;

/** How the platform admins hear of a delivery that failed for good (the notifications lib, wired by the runtime). */
export type OperatorNotifier = (
  scope: { em: EntityManager; emit(event: PendingEvent): void },
  message: { kind: string; title: string; body?: string; data?: Record<string, unknown> },
) => Promise<unknown>;

export const AttemptOutcomeSchema = Type.Union([
  Type.Literal('succeeded'),
  Type.Literal('failed'),
  // 410 Gone: the receiver asks never to be called again.
  Type.Literal('gone'),
  // Nothing was sent: the endpoint was disabled when the delivery came due.
  Type.Literal('endpoint-disabled'),
]);

const AttemptResultSchema = Type.Object(
  {
    deliveryId: Type.String({ format: 'uuid' }),
    attempt: Type.Integer({ minimum: 1 }),
    startedAt: Type.String({ format: 'date-time' }),
    durationMs: Type.Integer({ minimum: 0 }),
    outcome: AttemptOutcomeSchema,
    statusCode: Type.Union([Type.Integer({ minimum: 100, maximum: 999 }), Type.Null()]),
    error: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]),
    responseHeaders: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
    responseBody: Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]),
    retryAfterSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type AttemptResult = Static<typeof AttemptResultSchema>;

export interface RecordAttemptsDeps {
  retryBaseSeconds: number;
  /** Queues a retry's job, and the job of the next delivery about a record once the one before it settles; completes the recorded ones. */
  jobs: Pick<JobQueue, 'enqueueAtCommit' | 'complete'>;
  jobExpirySeconds: number;
  notifyOperators: OperatorNotifier;
  random?: () => number;
}

interface HeldDelivery {
  id: string;
  endpoint_id: string;
  event_type: string;
  attempt_count: number;
  attempts_left: number;
}

interface LockedEndpoint {
  id: string;
  organization_id: string | null;
  url: string;
  state: 'enabled' | 'disabled';
  consecutive_failures: number;
  /** When the operators were last told of its deliveries failing for good, and of how many since. */
  failure_notice_at: string | null;
  failures_unannounced: number;
}

/** At most one notice of deliveries failing for good per endpoint in this long; the count says how many. */
export const FAILURE_NOTICE_INTERVAL_MS = 60 * 60 * 1000;

/** A delivery as the recording left it, with the queue its next job goes to. */
interface ChangedDelivery {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: Date | string;
  organization_id: string | null;
  endpoint_id: string;
  ordering_key: string | null;
  delivery_queue: number;
}

interface DeliveryChange {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  attempts_left: number;
  delay_seconds: number;
  last_status_code: number | null;
  last_error: string | null;
}

/** An endpoint's origin only: receivers put tokens in paths and queries, and notices travel further than the endpoint's settings. */
function displayUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an endpoint';
  }
}

const describeFailure = (result: AttemptResult) =>
  result.error ?? (result.statusCode === null ? 'no response' : `HTTP ${result.statusCode}`);

/**
 * The webhook worker's one write: what its attempts gave. For each attempt it keeps the attempt,
 * moves its delivery on (succeeded, retried later, or failed for good), counts the endpoint's
 * consecutive failures (a success resets them; 5 disable it, as does a 410), emits
 * `webhook.endpoint-disabled-after-failures`, and tells the platform admins of deliveries that
 * failed for good. A result for an attempt that is not the delivery's next one (its lease ran out
 * and another worker took over) is ignored: the other worker's result counts.
 */
export function createRecordAttemptsProcedure(deps: RecordAttemptsDeps) {
  return defineProcedure({
    name: 'webhooks.deliveries.recordAttempts',
    summary: 'Record the outcome of delivery attempts (the webhook worker)',
    scope: 'system',
    permission: WEBHOOK_DELIVERY_PERMISSION,
    input: Type.Object(
      {
        attempts: Type.Array(AttemptResultSchema, { minItems: 1, maxItems: 1000 }),
        /** The jobs these attempts were made for, completed with the recording (a job queue's name, its job ids). */
        jobs: Type.Optional(
          Type.Array(
            Type.Object({ queue: Type.String({ pattern: '^webhook\\.deliver\\.\\d+$' }), ids: Type.Array(Type.String({ format: 'uuid' }), { maxItems: 2000 }) }, { additionalProperties: false }),
            { maxItems: 16 },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    output: Type.Object({
      recorded: Type.Integer(),
      /** When the soonest retry recorded here is due, in seconds from now; null: none. */
      nextRetryInSeconds: Type.Union([Type.Number(), Type.Null()]),
      /** Deliveries about a record that may go now, the one before them having settled here. */
      released: Type.Integer(),
    }),
    async handler(ctx, input) {
      const ids = [...new Set(input.attempts.map((result) => result.deliveryId))].sort();
      // Whatever is recorded below, these jobs are done: a result not recorded is one another worker's counts for.
      for (const { queue, ids: jobIds } of input.jobs ?? []) await deps.jobs.complete(queue, jobIds, ctx.em);
      // The endpoints first, then the deliveries: the order webhooks.endpoints.delete takes them
      // (the endpoint, then its deliveries by trigger), so the two never wait on each other in a cycle.
      const endpoints = await lockEndpointsOf(ctx.em, ids);
      const held = await ctx.em.execute<HeldDelivery[]>(
        `SELECT id, endpoint_id, event_type, attempt_count, attempts_left FROM webhook_deliveries
          WHERE id = ANY(?::uuid[]) AND status = 'pending' ORDER BY id FOR UPDATE`,
        [sqlTextArray(ids)],
      );
      const deliveries = new Map(held.map((row) => [row.id, row]));
      // The delivery's next attempt only, once: a worker that kept a delivery past its lease may have claimed and sent it twice.
      const seen = new Set<string>();
      const current = input.attempts.filter((result) => {
        if (deliveries.get(result.deliveryId)?.attempt_count !== result.attempt - 1 || seen.has(result.deliveryId)) return false;
        seen.add(result.deliveryId);
        return true;
      });
      if (current.length === 0) return { recorded: 0, nextRetryInSeconds: null, released: 0 };

      const changes: DeliveryChange[] = [];
      const failedForGood: AttemptResult[] = [];
      for (const result of current) {
        const delivery = deliveries.get(result.deliveryId) as HeldDelivery;
        if (result.outcome === 'endpoint-disabled') {
          changes.push({ id: delivery.id, status: 'failed', attempt_count: delivery.attempt_count, attempts_left: delivery.attempts_left, delay_seconds: 0, last_status_code: null, last_error: 'endpoint disabled' });
          continue;
        }
        const attemptsLeft = delivery.attempts_left - 1;
        const base = { id: delivery.id, attempt_count: result.attempt, attempts_left: attemptsLeft, last_status_code: result.statusCode };
        if (result.outcome === 'succeeded') {
          changes.push({ ...base, status: 'succeeded', delay_seconds: 0, last_error: null });
        } else if (result.outcome === 'gone' || attemptsLeft <= 0) {
          changes.push({ ...base, status: 'failed', delay_seconds: 0, last_error: describeFailure(result) });
          failedForGood.push(result);
        } else {
          const failedInRound = ATTEMPTS_PER_ROUND - attemptsLeft;
          const delay = retryDelaySeconds(failedInRound, deps.retryBaseSeconds, { retryAfterSeconds: result.retryAfterSeconds, random: deps.random });
          changes.push({ ...base, status: 'pending', delay_seconds: delay, last_error: describeFailure(result) });
        }
      }

      const sent = current.filter((result) => result.outcome !== 'endpoint-disabled');
      const endpointChanges = endpointHealthChanges(endpoints, sent, deliveries, ctx.emit);
      // One statement writes it all: the attempts, the deliveries' new state, the endpoints' health.
      const changed = await ctx.em.execute<ChangedDelivery[]>(
        `WITH attempts AS (
           INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_headers, response_body)
           SELECT a."deliveryId", a.attempt, a."startedAt", a."durationMs", a."statusCode", a.error, a."responseHeaders", a."responseBody"
             FROM jsonb_to_recordset(?::jsonb) AS a("deliveryId" uuid, attempt int, "startedAt" timestamptz, "durationMs" int,
                  "statusCode" int, error text, "responseHeaders" jsonb, "responseBody" text)
         ), deliveries AS (
           UPDATE webhook_deliveries d SET
              status = c.status, attempt_count = c.attempt_count, attempts_left = c.attempts_left,
              next_attempt_at = CASE WHEN c.status = 'pending' THEN now() + make_interval(secs => c.delay_seconds) ELSE d.next_attempt_at END,
              completed_at = CASE WHEN c.status = 'pending' THEN NULL ELSE now() END,
              locked_until = NULL, attempt_in_flight = NULL, last_status_code = c.last_status_code, last_error = c.last_error, updated_at = now()
             FROM jsonb_to_recordset(?::jsonb) AS c(id uuid, status text, attempt_count int, attempts_left int,
                  delay_seconds float8, last_status_code int, last_error text)
            WHERE d.id = c.id
           RETURNING d.id, d.status, d.next_attempt_at, d.organization_id, d.endpoint_id, d.ordering_key
         ), endpoints AS (
           UPDATE webhook_endpoints e SET
              consecutive_failures = u.consecutive_failures,
              state = CASE WHEN u.disabled_reason IS NULL THEN e.state ELSE 'disabled' END,
              disabled_reason = coalesce(u.disabled_reason, e.disabled_reason),
              disabled_at = CASE WHEN u.disabled_reason IS NULL THEN e.disabled_at ELSE now() END,
              updated_at = now()
             FROM jsonb_to_recordset(?::jsonb) AS u(id uuid, consecutive_failures int, disabled_reason text)
            WHERE e.id = u.id
         )
         SELECT c.*, e.delivery_queue FROM deliveries c JOIN webhook_endpoints e ON e.id = c.endpoint_id`,
        [JSON.stringify(sent), JSON.stringify(changes), JSON.stringify(endpointChanges)],
      );

      const retries = changed.filter((delivery) => delivery.status === 'pending');
      const successors = await nextInRecordOrder(ctx.em, changed.filter((delivery) => delivery.status !== 'pending' && delivery.ordering_key !== null));
      await deps.jobs.enqueueAtCommit(
        ctx.em,
        [...retries, ...successors].map((delivery) => deliveryJob(delivery, deps.jobExpirySeconds)),
      );

      await announceFailures(ctx, deps, endpoints, deliveries, failedForGood);
      const soonest = Math.min(...retries.map((delivery) => new Date(delivery.next_attempt_at).getTime()));
      return {
        recorded: current.length,
        nextRetryInSeconds: Number.isFinite(soonest) ? Math.max(0, (soonest - Date.now()) / 1000) : null,
        released: successors.length,
      };
    },
  });
}

/**
 * For each settled delivery about a record, the next one of its endpoint about that record, now
 * free to go (`mayGoNowSql`): its own job found it held back, so it gets another. One that is not
 * numbered yet has its first job still to come, and is left to it.
 */
async function nextInRecordOrder(em: EntityManager, settled: readonly ChangedDelivery[]): Promise<Array<Omit<ChangedDelivery, 'status'>>> {
  if (settled.length === 0) return [];
  return em.execute<Array<Omit<ChangedDelivery, 'status'>>>(
    `SELECT DISTINCT ON (d.endpoint_id, d.ordering_key) d.id, d.next_attempt_at, d.organization_id, d.endpoint_id, d.ordering_key, e.delivery_queue
       FROM webhook_deliveries d
       JOIN unnest(?::uuid[], ?::uuid[]) AS s(endpoint_id, ordering_key) ON d.endpoint_id = s.endpoint_id AND d.ordering_key = s.ordering_key
       JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.status = 'pending' AND d.sequence IS NOT NULL
      ORDER BY d.endpoint_id, d.ordering_key, d.sequence`,
    [sqlTextArray(settled.map((delivery) => delivery.endpoint_id)), sqlTextArray(settled.map((delivery) => delivery.ordering_key as string))],
  );
}

/**
 * Tells the platform's operators of deliveries that failed for good: per endpoint, one notice an
 * hour at most, counting every failure since the last one (a receiver failing many deliveries is
 * one notice, not one per delivery). Failures within the hour are counted for the next notice.
 */
async function announceFailures(
  ctx: { em: EntityManager; emit(event: PendingEvent): void },
  deps: RecordAttemptsDeps,
  endpoints: ReadonlyMap<string, LockedEndpoint>,
  deliveries: ReadonlyMap<string, HeldDelivery>,
  failedForGood: readonly AttemptResult[],
): Promise<void> {
  const byEndpoint = new Map<string, AttemptResult[]>();
  for (const result of failedForGood) {
    const endpointId = (deliveries.get(result.deliveryId) as HeldDelivery).endpoint_id;
    byEndpoint.set(endpointId, [...(byEndpoint.get(endpointId) ?? []), result]);
  }
  const noticeState: Array<{ id: string; announced: boolean; failures: number }> = [];
  for (const [endpointId, results] of byEndpoint) {
    const endpoint = endpoints.get(endpointId);
    if (!endpoint) continue;
    const lastNotice = endpoint.failure_notice_at === null ? undefined : new Date(endpoint.failure_notice_at).getTime();
    if (lastNotice !== undefined && Date.now() - lastNotice < FAILURE_NOTICE_INTERVAL_MS) {
      noticeState.push({ id: endpointId, announced: false, failures: results.length });
      continue;
    }
    const count = endpoint.failures_unannounced + results.length;
    const last = results[results.length - 1];
    const delivery = deliveries.get(last.deliveryId) as HeldDelivery;
    await deps.notifyOperators(ctx, {
      kind: 'webhook.delivery-failed',
      title:
        count === 1
          ? `A webhook delivery to ${displayUrl(endpoint.url)} failed for good`
          : `${count} webhook deliveries to ${displayUrl(endpoint.url)} failed for good`,
      body:
        `${count === 1 ? 'Delivery' : `${count} deliveries since the last notice; the last,`} ${delivery.id} (${delivery.event_type}) to endpoint ${endpointId}, ` +
        `failed after attempt ${last.attempt}: ${describeFailure(last)}. At most one such notice per endpoint an hour.`,
      data: { endpointId, deliveryId: delivery.id, eventType: delivery.event_type, lastError: describeFailure(last), failedDeliveries: count },
    });
    noticeState.push({ id: endpointId, announced: true, failures: 0 });
  }
  if (noticeState.length === 0) return;
  await ctx.em.execute(
    `UPDATE webhook_endpoints e SET
        failure_notice_at = CASE WHEN n.announced THEN now() ELSE e.failure_notice_at END,
        failures_unannounced = CASE WHEN n.announced THEN 0 ELSE e.failures_unannounced + n.failures END
       FROM jsonb_to_recordset(?::jsonb) AS n(id uuid, announced boolean, failures int)
      WHERE e.id = n.id`,
    [JSON.stringify(noticeState)],
  );
}

/** The endpoints of the deliveries, locked in id order (so concurrent recorders never deadlock). */
async function lockEndpointsOf(em: EntityManager, deliveryIds: readonly string[]): Promise<Map<string, LockedEndpoint>> {
  const rows = await em.execute<LockedEndpoint[]>(
    `SELECT id, organization_id, url, state, consecutive_failures, failure_notice_at, failures_unannounced FROM webhook_endpoints
      WHERE id IN (SELECT endpoint_id FROM webhook_deliveries WHERE id = ANY(?::uuid[])) ORDER BY id FOR UPDATE`,
    [sqlTextArray(deliveryIds)],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Consecutive failures per endpoint, in the order the attempts started; disables at 5 or on a 410. */
function endpointHealthChanges(
  endpoints: ReadonlyMap<string, LockedEndpoint>,
  sent: readonly AttemptResult[],
  deliveries: ReadonlyMap<string, HeldDelivery>,
  emit: (event: PendingEvent) => void,
): Array<{ id: string; consecutive_failures: number; disabled_reason: string | null }> {
  const updates: Array<{ id: string; consecutive_failures: number; disabled_reason: string | null }> = [];
  for (const endpoint of endpoints.values()) {
    const attempts = sent
      .filter((result) => (deliveries.get(result.deliveryId) as HeldDelivery).endpoint_id === endpoint.id)
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    let failures = endpoint.consecutive_failures;
    let disabledReason: string | null = null;
    let lastError = '';
    for (const result of attempts) {
      if (result.outcome === 'succeeded') {
        failures = 0;
        continue;
      }
      failures += 1;
      lastError = describeFailure(result);
      if (endpoint.state !== 'enabled' || disabledReason) continue;
      if (result.outcome === 'gone') disabledReason = 'the receiver answered 410 Gone';
      else if (failures >= DISABLE_AFTER_CONSECUTIVE_FAILURES) {
        disabledReason = `${failures} consecutive failed attempts; the last: ${lastError}`;
        emit(
          createEvent(
            'webhook.endpoint-disabled-after-failures',
            { endpointId: endpoint.id, url: displayUrl(endpoint.url), consecutiveFailures: failures, lastError },
            { organizationId: endpoint.organization_id ?? undefined },
          ),
        );
      }
    }
    updates.push({ id: endpoint.id, consecutive_failures: failures, disabled_reason: disabledReason });
  }
  return updates;
}
