import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlTextArray, type QueuedJob } from '@mrp/platform';

/** How many queues deliveries are sent through (decision 154); their migration makes them. */
export const DELIVERY_QUEUE_COUNT = 16;

/** The queue of the organizations whose endpoints have `delivery_queue` = `n`. */
export function deliveryQueueName(n: number): string {
  return `webhook.deliver.${n}`;
}

export const DELIVERY_QUEUES: readonly string[] = Array.from({ length: DELIVERY_QUEUE_COUNT }, (_, n) => deliveryQueueName(n));

/** What a delivery's job carries: the delivery (its row says the rest). */
export interface DeliveryJobData {
  deliveryId: string;
  organizationId: string | null;
  [key: string]: unknown;
}

/** A delivery, as far as its next job needs: its organization's queue, and when it is due. */
export interface DeliveryToQueue {
  id: string;
  organization_id: string | null;
  delivery_queue: number;
  next_attempt_at: Date | string;
}

/** The job that sends `delivery` when it is due. */
export function deliveryJob(delivery: DeliveryToQueue, expireInSeconds: number): QueuedJob<DeliveryJobData> {
  return {
    queue: deliveryQueueName(delivery.delivery_queue),
    data: { deliveryId: delivery.id, organizationId: delivery.organization_id },
    startAt: new Date(delivery.next_attempt_at),
    expireInSeconds,
  };
}

/**
 * How long a claim holds a delivery unless renewed: a live worker renews its claims every third of
 * it (its heartbeat), so the deliveries of a worker that died are free this long after its last beat.
 */
export const DELIVERY_LEASE_SECONDS = 10;

/**
 * A delivery job's expiry, counted from its fetch. pg-boss 10 cannot extend a running job, so a
 * send that outlasts it (a slow receiver) has its job run again while the worker still holds the
 * claim: that run finds the delivery held and queues its job again for when the claim would run
 * out (`claimDeliveries`' `held`). A worker that died has its jobs run again this long after it
 * fetched them, plus pg-boss's maintenance interval, and finds its claims run out by then.
 */
export const DELIVERY_JOB_EXPIRY_SECONDS = DELIVERY_LEASE_SECONDS + 2;

/** A delivery a worker holds until `lockedUntil`, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  organizationId: string | null;
  eventId: string;
  eventType: string;
  body: string;
  idempotencyKey: string;
  /** The endpoint's number for the delivery, sent as `Webhook-Sequence`. */
  sequence: number;
  /** The record whose deliveries it keeps order with (an endpoint with `ordering: "per-record"`); null: unordered. */
  orderingKey: string | null;
  /** The number this attempt gets: attempts made so far, plus one. */
  attempt: number;
  attemptsLeft: number;
  endpoint: {
    url: string;
    state: 'enabled' | 'disabled';
    signing: 'contract' | 'standard-webhooks';
    secretHash: string;
    secretCiphertext: string | null;
    previousSecretHash: string | null;
    previousSecretCiphertext: string | null;
    previousSecretExpiresAt: Date | null;
  };
}

interface ClaimedRow {
  id: string;
  endpoint_id: string;
  organization_id: string | null;
  event_id: string;
  event_type: string;
  body: string;
  idempotency_key: string;
  sequence: string;
  ordering_key: string | null;
  attempt_count: number;
  attempts_left: number;
  url: string;
  state: 'enabled' | 'disabled';
  signing: 'contract' | 'standard-webhooks';
  secret_hash: string;
  secret_ciphertext: string | null;
  previous_secret_hash: string | null;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | Date | null;
}

/** What the log says of an attempt whose outcome was never recorded. */
export const UNKNOWN_OUTCOME =
  'Outcome unknown: the worker stopped, or lost its database connection, before recording it; the request may have reached the receiver';

/**
 * Numbers the deliveries queued since the last numbering (`webhook_sequence_deliveries`, a
 * database function): per endpoint, from its counter, in the order they were queued, those
 * committed by now. Every delivery is numbered before it may go (`mayGoNowSql`); whoever sends
 * deliveries calls this first (before `claimDeliveries`), each endpoint's numbering waiting
 * for another one under way. `endpointIds` narrows it to those endpoints. Returns how many it numbered.
 */
export async function sequenceDeliveries(em: EntityManager, endpointIds?: readonly string[]): Promise<number> {
  const [{ numbered }] = await em.execute<Array<{ numbered: number }>>('SELECT webhook_sequence_deliveries(?::uuid[]) AS numbered', [
    endpointIds === undefined ? null : sqlTextArray(endpointIds),
  ]);
  return numbered;
}

/**
 * Whether the pending delivery `alias` (a row of `webhook_deliveries`) may be sent now, whoever
 * sends it: it has its number, and, when it keeps order with a record, no earlier delivery of its
 * endpoint about that record is still owed (pending: queued, in flight or waiting for a retry).
 * So deliveries about one record go one at a time, in order, and a failing one holds the later
 * ones back until it succeeds or fails for good; other records are not held. Reads
 * `webhook_deliveries_record_order`.
 */
export function mayGoNowSql(alias: string): string {
  return `(${alias}.sequence IS NOT NULL AND (${alias}.ordering_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM webhook_deliveries earlier
     WHERE earlier.endpoint_id = ${alias}.endpoint_id AND earlier.ordering_key = ${alias}.ordering_key
       AND earlier.status = 'pending' AND earlier.sequence < ${alias}.sequence)))`;
}

/**
 * Claims the deliveries whose jobs a worker fetched, those that may go now (`mayGoNowSql`):
 * pending, due, and not held by another claim (a job's duplicate) or held by a claim that ran
 * out; number them first (`sequenceDeliveries`). The rest need nothing from these jobs: settled,
 * held back behind an earlier delivery about their record (its settling queues their job), or due
 * later (their retry has its own job). Those held by a live claim are answered as `held`, with
 * when the claim runs out, for their jobs to be queued again then. Rows are locked in id order and
 * waited for, never skipped: a delivery being numbered or recorded right now is not passed over.
 */
export async function claimDeliveries(
  em: EntityManager,
  deliveryIds: readonly string[],
  leaseSeconds: number,
): Promise<{ claimed: ClaimedDelivery[]; held: DeliveryToQueue[] }> {
  const rows = await em.execute<ClaimedRow[]>(
    `WITH requested AS (
       SELECT d.id, e.id IS NULL AS orphaned FROM webhook_deliveries d
         LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.id = ANY(?::uuid[]) AND d.status = 'pending'
     ), orphans_dropped AS (
       -- Queued by a change that committed after its endpoint was deleted (no foreign key locks the
       -- endpoint, decision 89): nothing is owed to an endpoint that is gone.
       DELETE FROM webhook_deliveries d USING requested r WHERE d.id = r.id AND r.orphaned
     ), chosen AS (
       SELECT d.id FROM webhook_deliveries d
        WHERE d.id IN (SELECT id FROM requested WHERE NOT orphaned)
          AND d.status = 'pending' AND d.next_attempt_at <= now()
          AND (d.locked_until IS NULL OR d.locked_until < now())
          AND ${mayGoNowSql('d')}
        ORDER BY d.id
        FOR UPDATE OF d
     ), unrecorded AS (
       -- The attempt a worker claimed and never recorded (it died after sending, or lost its
       -- database): it counts, as an attempt of unknown outcome, before this claim makes the next.
       INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
       SELECT d.id, d.attempt_in_flight, d.attempt_in_flight_at, 0, NULL, ?
         FROM webhook_deliveries d JOIN chosen ON chosen.id = d.id
        WHERE d.attempt_in_flight IS NOT NULL
       ON CONFLICT (delivery_id, attempt) DO NOTHING
     )
     UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => ?::float8), updated_at = now(),
            attempt_count = coalesce(d.attempt_in_flight, d.attempt_count),
            -- An unknown outcome uses up an attempt of the round, but never the one this claim makes.
            attempts_left = CASE WHEN d.attempt_in_flight IS NULL THEN d.attempts_left ELSE greatest(d.attempts_left - 1, 1) END,
            attempt_in_flight = coalesce(d.attempt_in_flight, d.attempt_count) + 1,
            attempt_in_flight_at = now()
       FROM chosen, webhook_endpoints e
      WHERE d.id = chosen.id AND e.id = d.endpoint_id
      RETURNING d.id, d.endpoint_id, d.organization_id, d.event_id, d.event_type,
                (SELECT b.body FROM webhook_event_bodies b WHERE b.event_id = d.event_id) AS body, d.idempotency_key, d.sequence, d.ordering_key,
                d.attempt_count, d.attempts_left, e.url, e.state, e.signing, e.secret_hash, e.secret_ciphertext,
                e.previous_secret_hash, e.previous_secret_ciphertext, e.previous_secret_expires_at`,
    [sqlTextArray(deliveryIds), UNKNOWN_OUTCOME, leaseSeconds],
  );
  const claimed = new Set(rows.map((row) => row.id));
  const unclaimed = deliveryIds.filter((id) => !claimed.has(id));
  // Held by a live claim: their job is needed again when the claim would run out, in case its worker dies.
  const held =
    unclaimed.length === 0
      ? []
      : await em.execute<DeliveryToQueue[]>(
          `SELECT d.id, d.organization_id, e.delivery_queue, d.locked_until AS next_attempt_at
             FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.id = ANY(?::uuid[]) AND d.status = 'pending' AND d.locked_until >= now()`,
          [sqlTextArray(unclaimed)],
        );
  return { held, claimed: rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    organizationId: row.organization_id,
    eventId: row.event_id,
    eventType: row.event_type,
    body: row.body,
    idempotencyKey: row.idempotency_key,
    sequence: Number(row.sequence),
    orderingKey: row.ordering_key,
    attempt: row.attempt_count + 1,
    attemptsLeft: row.attempts_left,
    endpoint: {
      url: row.url,
      state: row.state,
      signing: row.signing,
      secretHash: row.secret_hash,
      secretCiphertext: row.secret_ciphertext,
      previousSecretHash: row.previous_secret_hash,
      previousSecretCiphertext: row.previous_secret_ciphertext,
      previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
    },
  })) };
}

/** Gives claimed deliveries back before their lease runs out (a worker stopping with work it did not start). */
export async function releaseClaims(em: EntityManager, deliveryIds: readonly string[]): Promise<void> {
  // SKIP LOCKED, as renewClaims: a claim not given back simply runs out.
  await em.execute(
    `UPDATE webhook_deliveries SET locked_until = NULL, attempt_in_flight = NULL
      WHERE id IN (SELECT id FROM webhook_deliveries WHERE id = ANY(?::uuid[]) AND status = 'pending' ORDER BY id FOR UPDATE SKIP LOCKED)`,
    [
    sqlTextArray(deliveryIds),
  ]);
}

/**
 * Extends the claims a live worker holds (delivery id to the attempt it claimed it for) by
 * `leaseSeconds` from now: its heartbeat. A claim another worker has taken over since (a higher
 * attempt in flight) or that was recorded is left alone.
 */
export async function renewClaims(em: EntityManager, claims: ReadonlyMap<string, number>, leaseSeconds: number): Promise<void> {
  await em.execute(
    // SKIP LOCKED: a delivery being recorded or deleted right now needs no renewal, and waiting on
    // it could close a cycle with a deletion locking the same rows in another order.
    `UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => ?::float8)
      WHERE d.id IN (
        SELECT q.id FROM webhook_deliveries q JOIN unnest(?::uuid[], ?::int[]) AS held(id, attempt) ON q.id = held.id
         WHERE q.attempt_in_flight = held.attempt AND q.status = 'pending'
         ORDER BY q.id FOR UPDATE OF q SKIP LOCKED
      )`,
    [leaseSeconds, sqlTextArray([...claims.keys()]), `{${[...claims.values()].join(',')}}`],
  );
}
