import { Migration } from '@mikro-orm/migrations';

/**
 * Announces each committed change to which events an automation takes (created, deleted, enabled
 * or disabled, its trigger or pattern changed) on `event_routes_changed`, with the organization
 * id, so every process's automation outbox forgets what it kept for that organization.
 */
export class Migration20261126000200_automation_route_changes extends Migration {
  override async up(): Promise<void> {
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
    this.addSql(`
      CREATE TRIGGER automations_route_change
        AFTER INSERT OR DELETE OR UPDATE OF enabled, trigger_type, event_pattern, include_own_runs, organization_id ON automations
        FOR EACH ROW EXECUTE FUNCTION announce_automation_route_change()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER automations_route_change ON automations');
    this.addSql('DROP FUNCTION announce_automation_route_change()');
  }
}
