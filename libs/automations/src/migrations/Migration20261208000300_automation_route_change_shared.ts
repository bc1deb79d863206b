import { Migration } from '@mikro-orm/migrations';

/** The automations' route-change trigger runs platform's one `announce_event_route_change()`; the lib's own copy goes. */
export class Migration20261208000300_automation_route_change_shared extends Migration {
  override async up(): Promise<void> {
    this.addSql('DROP TRIGGER automations_route_change ON automations');
    this.addSql(`
      CREATE TRIGGER automations_route_change
        AFTER INSERT OR DELETE OR UPDATE OF enabled, trigger_type, event_pattern, include_own_runs, organization_id ON automations
        FOR EACH ROW EXECUTE FUNCTION announce_event_route_change()`);
    this.addSql('DROP FUNCTION announce_automation_route_change()');
  }

  override async down(): Promise<void> {
    this.addSql(`
      CREATE FUNCTION announce_automation_route_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          PERFORM pg_notify('event_routes_changed', OLD.organization_id::text);
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM pg_notify('event_routes_changed', NEW.organization_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    this.addSql('DROP TRIGGER automations_route_change ON automations');
    this.addSql(`
      CREATE TRIGGER automations_route_change
        AFTER INSERT OR DELETE OR UPDATE OF enabled, trigger_type, event_pattern, include_own_runs, organization_id ON automations
        FOR EACH ROW EXECUTE FUNCTION announce_automation_route_change()`);
  }
}
