import { Migration } from '@mikro-orm/migrations';

/** The endpoints' route-change trigger runs platform's one `announce_event_route_change()`; events' own copy goes. */
export class Migration20261208000200_endpoint_route_change_shared extends Migration {
  override async up(): Promise<void> {
    this.addSql('DROP TRIGGER webhook_endpoints_route_change ON webhook_endpoints');
    this.addSql(`
      CREATE TRIGGER webhook_endpoints_route_change
        AFTER INSERT OR DELETE OR UPDATE OF state, subscriptions, organization_id, principal_id ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION announce_event_route_change()`);
    this.addSql('DROP FUNCTION announce_webhook_route_change()');
  }

  override async down(): Promise<void> {
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
    this.addSql('DROP TRIGGER webhook_endpoints_route_change ON webhook_endpoints');
    this.addSql(`
      CREATE TRIGGER webhook_endpoints_route_change
        AFTER INSERT OR DELETE OR UPDATE OF state, subscriptions, organization_id, principal_id ON webhook_endpoints
        FOR EACH ROW EXECUTE FUNCTION announce_webhook_route_change()`);
  }
}
