import { Migration } from '@mikro-orm/migrations';

/**
 * Per-endpoint sequence numbers and ordered delivery (decision 151).
 *
 * - `queue_position`: taken from one sequence as the delivery is queued, which is at its
 *   transaction's commit: two changes of one record are serialised by the record's row lock, so the
 *   later one's deliveries always have the higher position.
 * - `sequence`: the endpoint's number for the delivery (`Webhook-Sequence`), given after commit by
 *   `webhook_sequence_deliveries()` from the endpoint's counter (`last_sequence`), in order of
 *   position, to the deliveries visible then: without gaps, in the order they became visible.
 * - `ordering_key`: the record a delivery must keep order with, on endpoints with
 *   `ordering = 'per-record'` only (NULL: unordered).
 */
export class Migration20261206001100_webhook_delivery_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE webhook_endpoints
      ADD COLUMN ordering text NOT NULL DEFAULT 'none' CHECK (ordering IN ('none', 'per-record')),
      ADD COLUMN last_sequence bigint NOT NULL DEFAULT 0`);
    this.addSql('CREATE SEQUENCE webhook_delivery_queue_position');
    this.addSql('ALTER TABLE webhook_deliveries ADD COLUMN queue_position bigint, ADD COLUMN sequence bigint, ADD COLUMN ordering_key uuid');
    // Added without a default, then given one: a volatile default would rewrite the table.
    this.addSql(`ALTER TABLE webhook_deliveries ALTER COLUMN queue_position SET DEFAULT nextval('webhook_delivery_queue_position')`);
    // The deliveries still owed are numbered now, in the order they were queued; settled ones keep
    // none (they were sent without one) until a redelivery numbers them.
    this.addSql(`
      WITH numbered AS (
        SELECT id, endpoint_id, row_number() OVER (PARTITION BY endpoint_id ORDER BY created_at, id) AS n
          FROM webhook_deliveries WHERE status = 'pending'
      ), counters AS (
        UPDATE webhook_endpoints e SET last_sequence = c.n
          FROM (SELECT endpoint_id, max(n) AS n FROM numbered GROUP BY endpoint_id) c WHERE e.id = c.endpoint_id
      )
      UPDATE webhook_deliveries d SET sequence = numbered.n FROM numbered WHERE d.id = numbered.id`);
    // The deliveries waiting for their number, in the order they get it: small, as numbering follows commit closely.
    this.addSql(`CREATE INDEX webhook_deliveries_unsequenced ON webhook_deliveries (endpoint_id, queue_position)
      WHERE sequence IS NULL AND status = 'pending'`);
    // An ordered delivery's earlier ones about the same record that are still owed.
    this.addSql(`CREATE INDEX webhook_deliveries_record_order ON webhook_deliveries (endpoint_id, ordering_key, sequence)
      WHERE ordering_key IS NOT NULL AND status = 'pending'`);
    this.addSql(`
      CREATE FUNCTION webhook_sequence_deliveries(only_endpoints uuid[] DEFAULT NULL) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        locked uuid[];
        numbered integer;
      BEGIN
        -- The endpoints first (before their deliveries, as every path takes them: decision 146), so
        -- two numberings of one endpoint follow each other.
        SELECT array_agg(id) INTO locked FROM (
          SELECT e.id FROM webhook_endpoints e
           WHERE e.id IN (SELECT u.endpoint_id FROM webhook_deliveries u WHERE u.sequence IS NULL AND u.status = 'pending')
             AND (only_endpoints IS NULL OR e.id = ANY(only_endpoints))
           ORDER BY e.id FOR NO KEY UPDATE OF e
        ) endpoints;
        IF locked IS NULL THEN
          RETURN 0;
        END IF;
        -- A statement of its own, so a snapshot taken after the locks: it sees every delivery that
        -- committed before, and those another numbering of these endpoints numbered.
        WITH fresh AS (
          SELECT d.id, d.endpoint_id, row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.queue_position, d.id) AS n
            FROM webhook_deliveries d
           WHERE d.endpoint_id = ANY(locked) AND d.sequence IS NULL AND d.status = 'pending'
        ), counters AS (
          UPDATE webhook_endpoints e SET last_sequence = e.last_sequence + c.n
            FROM (SELECT endpoint_id, max(n) AS n FROM fresh GROUP BY endpoint_id) c
           WHERE e.id = c.endpoint_id
          RETURNING e.id, e.last_sequence - c.n AS base
        )
        UPDATE webhook_deliveries d SET sequence = counters.base + fresh.n
          FROM fresh JOIN counters ON counters.id = fresh.endpoint_id
         WHERE d.id = fresh.id AND d.sequence IS NULL;
        GET DIAGNOSTICS numbered = ROW_COUNT;
        RETURN numbered;
      END $$`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP FUNCTION webhook_sequence_deliveries(uuid[])');
    this.addSql('ALTER TABLE webhook_deliveries DROP COLUMN queue_position, DROP COLUMN sequence, DROP COLUMN ordering_key');
    this.addSql('DROP SEQUENCE webhook_delivery_queue_position');
    this.addSql('ALTER TABLE webhook_endpoints DROP COLUMN ordering, DROP COLUMN last_sequence');
  }
}
