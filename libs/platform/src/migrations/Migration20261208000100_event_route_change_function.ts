import { Migration } from '@mikro-orm/migrations';

/**
 * The one trigger function that announces a change to what events are routed where: on
 * `event_routes_changed`, with the changed row's organization id (empty for a platform-wide row),
 * so every process forgets the routes it kept for that organization. PostgreSQL delivers it at
 * commit, once per distinct payload, and drops it on rollback. The libs whose rows are routes
 * (webhook endpoints, automations, kanban boards) point their triggers at it, each naming the
 * columns that change a route.
 */
export class Migration20261208000100_event_route_change_function extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE FUNCTION announce_event_route_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          PERFORM pg_notify('event_routes_changed', coalesce(OLD.organization_id::text, ''));
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM pg_notify('event_routes_changed', coalesce(NEW.organization_id::text, ''));
        END IF;
        RETURN NULL;
      END $$`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP FUNCTION announce_event_route_change()');
  }
}
