import { Migration } from '@mikro-orm/migrations';

/**
 * Announces each committed change to which events an endpoint receives (created, deleted, its
 * state, subscriptions or owner changed) on `event_routes_changed`, with the organization id
 * (empty for a platform-wide endpoint), so every process's outbox forgets what it kept. Failure
 * counts and secrets change nothing routed, and stay silent. PostgreSQL delivers at commit, once
 * per distinct payload.
 */
export class Migration20261126000100_webhook_route_changes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE FUNCTION announce_webhook_route_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          PERFORM pg_notify('event_routes_changed', coalesce(OLD.organization_id::text, ''));
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM pg_notify('event_routes_changed', coalesce(NEW.organization_id::text, ''));
        END IF;
        RETURN NULL;
      END $$`);
    this.addSql(`
      CREATE TRIGGER webhook_endpoints_route_change
        AFTER INSERT OR DELETE OR UPDATE OF state, subscriptions, organization_id ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION announce_webhook_route_change()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER webhook_endpoints_route_change ON webhook_endpoints');
    this.addSql('DROP FUNCTION announce_webhook_route_change()');
  }
}
