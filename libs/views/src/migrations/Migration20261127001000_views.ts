import { Migration } from '@mikro-orm/migrations';

/**
 * Kanban boards and calendars: views over Data Models (docs/views.md). They name a model and its
 * fields by key (immutable), never by row: the views lib does not reach into data-models' tables.
 */
export class Migration20261127001000_views extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE kanban_boards (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        name text NOT NULL,
        model_key text NOT NULL,
        -- The SELECT field whose options, in order, are the board's columns.
        field_key text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    this.addSql('CREATE INDEX kanban_boards_organization ON kanban_boards (organization_id, model_key)');

    // A card's place in its column: a fractional index (text compared byte by byte, hence COLLATE "C");
    // one row per (board, record), moved without renumbering the others. Keys are made under a lock
    // of the column, so they never repeat within it (the unique index holds that; lists still order
    // by (position, record id), a total order whatever the keys).
    this.addSql(`
      CREATE TABLE kanban_card_positions (
        board_id uuid NOT NULL REFERENCES kanban_boards (id) ON DELETE CASCADE,
        record_id uuid NOT NULL,
        column_id text NOT NULL,
        position text COLLATE "C" NOT NULL,
        PRIMARY KEY (board_id, record_id)
      )`);
    this.addSql('CREATE UNIQUE INDEX kanban_card_positions_order ON kanban_card_positions (board_id, column_id, position)');
    this.addSql('CREATE INDEX kanban_card_positions_record ON kanban_card_positions (record_id)');

    this.addSql(`
      CREATE TABLE kanban_card_assignees (
        board_id uuid NOT NULL REFERENCES kanban_boards (id) ON DELETE CASCADE,
        record_id uuid NOT NULL,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        assigned_by text NOT NULL,
        assigned_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (board_id, record_id, user_id)
      )`);
    this.addSql('CREATE INDEX kanban_card_assignees_record ON kanban_card_assignees (record_id)');

    this.addSql(`
      CREATE TABLE calendars (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        name text NOT NULL,
        model_key text NOT NULL,
        start_field_key text NOT NULL,
        end_field_key text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    this.addSql('CREATE INDEX calendars_organization ON calendars (organization_id, id)');

    // Which boards a model's record events concern is kept per process (the card event deriver);
    // every committed change to it is announced like the other event routes.
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
    this.addSql(`
      CREATE TRIGGER kanban_boards_route_change
        AFTER INSERT OR DELETE OR UPDATE OF model_key, field_key, organization_id ON kanban_boards
        FOR EACH ROW EXECUTE FUNCTION announce_kanban_board_route_change()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER kanban_boards_route_change ON kanban_boards');
    this.addSql('DROP FUNCTION announce_kanban_board_route_change()');
    this.addSql('DROP TABLE calendars');
    this.addSql('DROP TABLE kanban_card_assignees');
    this.addSql('DROP TABLE kanban_card_positions');
    this.addSql('DROP TABLE kanban_boards');
  }
}
