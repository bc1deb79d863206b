import { Migration } from '@mikro-orm/migrations';

/** The boards' route-change trigger runs platform's one `announce_event_route_change()`; the lib's own copy goes. */
export class Migration20261208000400_board_route_change_shared extends Migration {
  override async up(): Promise<void> {
    this.addSql('DROP TRIGGER kanban_boards_route_change ON kanban_boards');
    this.addSql(`
      CREATE TRIGGER kanban_boards_route_change
        AFTER INSERT OR DELETE OR UPDATE OF model_key, field_key, organization_id ON kanban_boards
        FOR EACH ROW EXECUTE FUNCTION announce_event_route_change()`);
    this.addSql('DROP FUNCTION announce_kanban_board_route_change()');
  }

  override async down(): Promise<void> {
    this.addSql(`
      CREATE FUNCTION announce_kanban_board_route_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          PERFORM pg_notify('event_routes_changed', OLD.organization_id::text);
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM pg_notify('event_routes_changed', NEW.organization_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    this.addSql('DROP TRIGGER kanban_boards_route_change ON kanban_boards');
    this.addSql(`
      CREATE TRIGGER kanban_boards_route_change
        AFTER INSERT OR DELETE OR UPDATE OF model_key, field_key, organization_id ON kanban_boards
        FOR EACH ROW EXECUTE FUNCTION announce_kanban_board_route_change()`);
  }
}
