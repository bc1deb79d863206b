import { Migration } from '@mikro-orm/migrations';

/**
 * Queueing a delivery no longer locks its endpoint's row (decision 89). The foreign key made every
 * insert take a share lock on the endpoint, so every change of an organization with an endpoint
 * wrote a lock (a MultiXact under concurrency) to the same row. Deleting an endpoint still deletes
 * its deliveries, by this trigger; a delivery queued by a transaction that commits after the
 * deletion is dropped by the workers' claim.
 */
export class Migration20261126000400_deliveries_without_endpoint_lock extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey');
    this.addSql(`
      CREATE FUNCTION delete_webhook_endpoint_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM webhook_deliveries WHERE endpoint_id = OLD.id;
        RETURN NULL;
      END $$`);
    this.addSql(`
      CREATE TRIGGER webhook_endpoints_delete_deliveries
        AFTER DELETE ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION delete_webhook_endpoint_deliveries()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER webhook_endpoints_delete_deliveries ON webhook_endpoints');
    this.addSql('DROP FUNCTION delete_webhook_endpoint_deliveries()');
    this.addSql('DELETE FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id)');
    this.addSql(`
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey
        FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id) ON DELETE CASCADE`);
  }
}
