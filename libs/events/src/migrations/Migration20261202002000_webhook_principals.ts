import { Migration } from '@mikro-orm/migrations';

/**
 * An endpoint acts as a principal (decision 130): record events reach it only when that principal
 * may read the record. Existing endpoints act as their creator where a person created them (a
 * creator no longer able to act gets no record events); otherwise (a system task) as nobody, which
 * gets no record events either, until someone with the authority names a principal.
 * A delivery remembers the roles its record was restricted to (NULL: not a record event), so the
 * delivery log shows its payload only to those who may read the record; a delivery the principal
 * may not receive is kept as `filtered`, without its payload, and never sent.
 */
export class Migration20261202002000_webhook_principals extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE webhook_endpoints ADD COLUMN principal_id text');
    this.addSql(`UPDATE webhook_endpoints SET principal_id = created_by
      WHERE created_by ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' OR created_by ~ '^svc_[0-9a-f]{32}$'`);
    // The outboxes keep the endpoints with their principal: a change of principal is a change of route.
    this.addSql('DROP TRIGGER webhook_endpoints_route_change ON webhook_endpoints');
    this.addSql(`
      CREATE TRIGGER webhook_endpoints_route_change
        AFTER INSERT OR DELETE OR UPDATE OF state, subscriptions, organization_id, principal_id ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION announce_webhook_route_change()`);
    this.addSql('ALTER TABLE webhook_deliveries ADD COLUMN record_access_role_ids uuid[]');
    this.addSql('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check');
    this.addSql(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check
      CHECK (status IN ('pending', 'succeeded', 'failed', 'filtered'))`);
  }

  override async down(): Promise<void> {
    this.addSql(`DELETE FROM webhook_deliveries WHERE status = 'filtered'`);
    this.addSql('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check');
    this.addSql(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed'))`);
    this.addSql('ALTER TABLE webhook_deliveries DROP COLUMN record_access_role_ids');
    this.addSql('DROP TRIGGER webhook_endpoints_route_change ON webhook_endpoints');
    this.addSql(`
      CREATE TRIGGER webhook_endpoints_route_change
        AFTER INSERT OR DELETE OR UPDATE OF state, subscriptions, organization_id ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION announce_webhook_route_change()`);
    this.addSql('ALTER TABLE webhook_endpoints DROP COLUMN principal_id');
  }
}
