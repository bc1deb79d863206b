import { JobQueueMigration } from '@mrp/platform';

/** Frozen here: the delivery code's `DELIVERY_QUEUE_COUNT` names these queues, and a test checks they agree. */
const QUEUES = Array.from({ length: 16 }, (_, n) => `webhook.deliver.${n}`);

/**
 * Webhook deliveries are sent by jobs of sixteen queues, `webhook.deliver.0` to `.15` (decision
 * 154); `webhook_deliveries` stays their log. Each organization's endpoints send through one
 * queue, given in turn to organizations as they make their first endpoint, so that a worker can
 * share its slots among organizations. Each delivery still pending gets its job, due when its
 * row says. A job whose worker died expires and runs again at once, while its retries last.
 * Statements run in order, through `execute` (pg-boss's own run at once, not after `up`).
 */
export class Migration20261207000100_webhook_delivery_jobs extends JobQueueMigration {
  override async up(): Promise<void> {
    await this.execute('ALTER TABLE webhook_endpoints ADD COLUMN delivery_queue smallint');
    await this.execute('CREATE SEQUENCE webhook_delivery_queue_turns MINVALUE 0 START 0');
    await this.execute(`UPDATE webhook_endpoints e SET delivery_queue = turns.queue
       FROM (SELECT organization_id, ((row_number() OVER (ORDER BY min(created_at), organization_id)) - 1) % 16 AS queue
               FROM webhook_endpoints GROUP BY organization_id) turns
      WHERE e.organization_id IS NOT DISTINCT FROM turns.organization_id`);
    await this.execute(
      `SELECT setval('webhook_delivery_queue_turns', (SELECT count(DISTINCT coalesce(organization_id::text, '')) FROM webhook_endpoints), false)`,
    );
    await this.execute(`ALTER TABLE webhook_endpoints ALTER COLUMN delivery_queue SET NOT NULL,
      ADD CONSTRAINT webhook_endpoints_delivery_queue CHECK (delivery_queue BETWEEN 0 AND 15)`);
    // However an endpoint is made, it gets its organization's queue: the one its other endpoints use, else the next turn.
    await this.execute(`CREATE FUNCTION webhook_endpoint_delivery_queue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.delivery_queue := coalesce(
          (SELECT delivery_queue FROM webhook_endpoints WHERE organization_id IS NOT DISTINCT FROM NEW.organization_id LIMIT 1),
          nextval('webhook_delivery_queue_turns') % 16);
        RETURN NEW;
      END $$`);
    await this.execute(`CREATE TRIGGER webhook_endpoints_delivery_queue BEFORE INSERT ON webhook_endpoints
      FOR EACH ROW EXECUTE FUNCTION webhook_endpoint_delivery_queue()`);
    await this.createJobQueues(
      QUEUES.map((name) => ({ name, policy: 'standard' as const, retryLimit: 100, retryDelaySeconds: 0, expireInSeconds: 60 })),
    );
    const pending = await this.execute(
      `SELECT d.id, d.organization_id, e.delivery_queue, d.next_attempt_at
         FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.status = 'pending'`,
    );
    if (pending.length > 0) {
      await this.jobQueue().insert(
        pending.map((row) => ({
          name: QUEUES[row.delivery_queue as number],
          data: { deliveryId: row.id as string, organizationId: (row.organization_id as string | null) ?? null },
          startAfter: new Date(row.next_attempt_at as string).toISOString(),
        })),
      );
    }
  }

  override async down(): Promise<void> {
    await this.deleteJobQueues(QUEUES);
    await this.execute('DROP TRIGGER webhook_endpoints_delivery_queue ON webhook_endpoints');
    await this.execute('DROP FUNCTION webhook_endpoint_delivery_queue()');
    await this.execute('ALTER TABLE webhook_endpoints DROP COLUMN delivery_queue');
    await this.execute('DROP SEQUENCE webhook_delivery_queue_turns');
  }
}
