import { Client, type Notification } from 'pg';
import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';

/**
 * Which events go where is kept per process and forgotten when a route table changes (decision
 * 72). Every lib's route table announces its changes through platform's one trigger function, so
 * the rule of what is announced, and how, lives in one place.
 */
describe('route-change announcements', () => {
  let database: TestDatabase;
  let writer: Client;
  let listener: Client;
  const heard: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    writer = new Client({ connectionString: database.directUrl });
    listener = new Client({ connectionString: database.directUrl });
    await writer.connect();
    await listener.connect();
    listener.on('notification', (message: Notification) => {
      if (message.channel === 'event_routes_changed') heard.push(message.payload ?? '');
    });
    await listener.query('LISTEN event_routes_changed');
  });

  afterAll(async () => {
    await writer?.end();
    await listener?.end();
    await database?.drop();
  });

  it('come from one function, whichever lib owns the table', async () => {
    const { rows } = await writer.query<{ name: string }>(
      `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.prosrc LIKE '%event_routes_changed%' ORDER BY 1`,
    );
    expect(rows.map((row) => row.name)).toEqual(['announce_event_route_change']);
  });

  it('are made by the webhook endpoints, the automations and the kanban boards', async () => {
    const { rows } = await writer.query<{ route_table: string }>(
      `SELECT c.relname AS route_table FROM pg_trigger t
         JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE p.proname = 'announce_event_route_change' ORDER BY 1`,
    );
    expect(rows.map((row) => row.route_table)).toEqual(['automations', 'kanban_boards', 'webhook_endpoints']);
  });

  it("name the changed row's organization (old and new), empty for a row of none, at commit only", async () => {
    await writer.query('CREATE TEMP TABLE routes (organization_id uuid)');
    await writer.query(`CREATE TRIGGER routes_change AFTER INSERT OR UPDATE OR DELETE ON routes
      FOR EACH ROW EXECUTE FUNCTION announce_event_route_change()`);
    const [first, second] = ['0195a000-0000-7000-8000-000000000001', '0195a000-0000-7000-8000-000000000002'];

    await writer.query('BEGIN');
    await writer.query('INSERT INTO routes VALUES ($1)', [first]);
    await writer.query('ROLLBACK');
    await writer.query('BEGIN');
    await writer.query('INSERT INTO routes VALUES ($1), (NULL)', [first]);
    await writer.query('UPDATE routes SET organization_id = $2 WHERE organization_id = $1', [first, second]);
    await writer.query('DELETE FROM routes WHERE organization_id IS NULL');
    await writer.query('COMMIT');
    // A statement on the listener's connection makes it read what arrived before it.
    await listener.query('SELECT 1');

    // PostgreSQL sends each distinct payload of a transaction once, in the order first sent.
    expect(heard).toEqual([first, '', second]);
  });
});
