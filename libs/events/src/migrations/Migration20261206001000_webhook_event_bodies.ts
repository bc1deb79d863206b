import { Migration } from '@mikro-orm/migrations';

/**
 * An event's body is stored once, however many endpoints receive it (decision 149): each delivery
 * held a copy. The body kept is one a delivery sends (with `payload`) when any delivery of the
 * event is not filtered; an event only filtered deliveries carry keeps the body without it.
 */
export class Migration20261206001000_webhook_event_bodies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE webhook_event_bodies (
        event_id uuid PRIMARY KEY,
        -- The exact bytes sent, so every attempt, every endpoint and every replay carries the same body.
        body text NOT NULL
      )`);
    this.addSql(`
      INSERT INTO webhook_event_bodies (event_id, body)
      SELECT DISTINCT ON (event_id) event_id, body FROM webhook_deliveries ORDER BY event_id, status = 'filtered'`);
    this.addSql('ALTER TABLE webhook_deliveries DROP COLUMN body');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE webhook_deliveries ADD COLUMN body text');
    this.addSql(`
      UPDATE webhook_deliveries d
         SET body = CASE WHEN d.status = 'filtered' THEN (b.body::jsonb - 'payload')::text ELSE b.body END
        FROM webhook_event_bodies b WHERE b.event_id = d.event_id`);
    this.addSql(`UPDATE webhook_deliveries SET body = '{}' WHERE body IS NULL`);
    this.addSql('ALTER TABLE webhook_deliveries ALTER COLUMN body SET NOT NULL');
    this.addSql('DROP TABLE webhook_event_bodies');
  }
}
