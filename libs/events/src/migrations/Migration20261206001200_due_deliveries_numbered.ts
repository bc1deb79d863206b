import { Migration } from '@mikro-orm/migrations';

/**
 * The due-deliveries index holds numbered deliveries only (decision 151): a delivery may go only
 * once numbered, so the change that queues it writes one index entry fewer (the entry is made by
 * the numbering, in the worker's transaction, not the change's). A delivery queued after its
 * endpoint was deleted is never numbered: the numbering drops it.
 */
export class Migration20261206001200_due_deliveries_numbered extends Migration {
  override async up(): Promise<void> {
    this.addSql('DROP INDEX webhook_deliveries_due');
    this.addSql(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND sequence IS NOT NULL`);
    this.addSql(numbering(true));
  }

  override async down(): Promise<void> {
    this.addSql(numbering(false));
    this.addSql('DROP INDEX webhook_deliveries_due');
    this.addSql(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
  }
}

function numbering(dropsOrphans: boolean): string {
  return `
    CREATE OR REPLACE FUNCTION webhook_sequence_deliveries(only_endpoints uuid[] DEFAULT NULL) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      locked uuid[];
      numbered integer;
    BEGIN
      ${
        dropsOrphans
          ? `-- Queued by a change that committed after its endpoint was deleted (no foreign key locks the
      -- endpoint, decision 89): nothing is owed to an endpoint that is gone.
      DELETE FROM webhook_deliveries u
       WHERE u.sequence IS NULL AND u.status = 'pending'
         AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = u.endpoint_id);`
          : ''
      }
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
    END $$`;
}
