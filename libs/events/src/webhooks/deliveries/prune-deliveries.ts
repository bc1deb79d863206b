import { Type } from '@sinclair/typebox';
import { defineProcedure } from '@mrp/platform';

/** What the `prune-webhook-deliveries` task's principal holds, and nothing else does. */
export const PRUNE_WEBHOOK_DELIVERIES = 'system.prune-webhook-deliveries';
/** How long the delivery log is kept unless WEBHOOK_RETENTION_DAYS says otherwise. */
export const DEFAULT_WEBHOOK_RETENTION_DAYS = 30;
/** Rows one statement deletes at most: each batch commits alone and holds its row locks only that long. */
export const PRUNE_BATCH_SIZE = 5000;

/**
 * The scheduled task `prune-webhook-deliveries`: deletes the deliveries created more than
 * `retentionDays` ago that are settled (succeeded, failed or filtered), with their attempts (the
 * foreign key cascades) and the event bodies no delivery references any more. A pending delivery
 * is never pruned, however old: it is still owed to its receiver. Returns how many deliveries it
 * deleted.
 */
export const pruneWebhookDeliveries = defineProcedure({
  name: 'webhooks.deliveries.prune',
  summary: 'Delete settled webhook deliveries (their attempts and event bodies) older than the retention period',
  scope: 'system',
  permission: PRUNE_WEBHOOK_DELIVERIES,
  // Not read-only, but it must not run in one transaction: each batch below commits by itself, so a
  // prune of millions of rows never holds their locks (or one huge transaction) for the whole run.
  readOnly: true,
  input: Type.Object(
    {
      retentionDays: Type.Integer({ minimum: 1, maximum: 36_500 }),
      batchSize: Type.Optional(Type.Integer({ minimum: 1, maximum: PRUNE_BATCH_SIZE, default: PRUNE_BATCH_SIZE })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ processed: Type.Integer({ minimum: 0, description: 'Deliveries deleted' }) }),
  async handler(ctx, input) {
    const batchSize = input.batchSize ?? PRUNE_BATCH_SIZE;
    // One cutoff for the whole run, to the microsecond (as text: a JavaScript Date keeps milliseconds).
    const [{ cutoff }] = await ctx.em.execute<Array<{ cutoff: string }>>(
      'SELECT (now() - make_interval(days => ?::int))::text AS cutoff',
      [input.retentionDays],
    );
    let deleted = 0;
    for (;;) {
      // Oldest first along `webhook_deliveries_created`; rows someone holds (a redeliver under way)
      // are skipped, and the re-check under the row lock keeps a delivery that just became pending.
      // The bodies of their events go with the last delivery that carries them (the statement's
      // snapshot still shows the rows it deletes, so those are left out of the look for others).
      const [batch] = await ctx.em.execute<Array<{ deleted: number }>>(
        `WITH doomed AS (
           SELECT id FROM webhook_deliveries
            WHERE created_at < ?::timestamptz AND status <> 'pending'
            ORDER BY created_at
            LIMIT ?
            FOR UPDATE SKIP LOCKED
         ), gone AS (
           DELETE FROM webhook_deliveries d USING doomed WHERE d.id = doomed.id RETURNING d.id, d.event_id
         ), bodies_gone AS (
           DELETE FROM webhook_event_bodies b
            WHERE b.event_id IN (SELECT event_id FROM gone)
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries k WHERE k.event_id = b.event_id AND k.id NOT IN (SELECT id FROM gone))
         )
         SELECT count(*)::int AS deleted FROM gone`,
        [cutoff, batchSize],
      );
      deleted += batch.deleted;
      if (batch.deleted < batchSize) break;
    }
    // Bodies no delivery carries that the batches could not see go: two deletions at once that each
    // left the other's delivery of an event, an endpoint deleted with its deliveries. Event ids are
    // UUIDv7, so the ids below the cutoff's are the events older than the retention.
    for (;;) {
      const [batch] = await ctx.em.execute<Array<{ deleted: number }>>(
        `WITH orphans AS (
           SELECT o.event_id FROM webhook_event_bodies o
            WHERE o.event_id < (lpad(to_hex(floor(extract(epoch FROM ?::timestamptz) * 1000)::bigint), 12, '0') || repeat('0', 20))::uuid
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries k WHERE k.event_id = o.event_id)
            ORDER BY o.event_id
            LIMIT ?
         ), gone AS (
           DELETE FROM webhook_event_bodies b USING orphans WHERE b.event_id = orphans.event_id RETURNING 1
         )
         SELECT count(*)::int AS deleted FROM gone`,
        [cutoff, batchSize],
      );
      if (batch.deleted < batchSize) return { processed: deleted };
    }
  },
});
