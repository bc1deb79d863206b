import { Client, TypeOverrides, types } from 'pg';
import { createEmptyTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { PipelineError, sendPipeline } from './pipeline';
import { canPipeline, send, type Statement } from './statement';

/**
 * The pipeline speaks pg's Submittable interface and drives pg's Connection message by message:
 * these tests run it against a real PostgreSQL, so an upgrade of pg that changes either fails
 * here, loudly, rather than in a transaction.
 */
describe('sendPipeline (several statements, one round trip)', () => {
  let database: TestDatabase;
  let client: Client;
  const statement = (text: string, values: Statement['values'] = []): Statement => ({ text, values });

  beforeAll(async () => {
    database = await createEmptyTestDatabase();
    client = new Client({ connectionString: database.url });
    await client.connect();
    await client.query('CREATE TABLE piped (id int PRIMARY KEY, note text, at timestamptz)');
  });
  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  it('answers one result per statement, rows parsed, in order, after a single Sync', async () => {
    // pg's Connection is typed but not on Client's public typings; its events are how pg itself reads the protocol.
    const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
    let readyForQuery = 0;
    const count = () => readyForQuery++;
    connection.on('readyForQuery', count);
    const results = await sendPipeline(
      client,
      [
        statement('INSERT INTO piped (id, note, at) VALUES ($1::int, $2::text, $3::timestamptz), ($4::int, NULL, NULL)', ['1', 'one', '2026-01-02T03:04:05Z', '2']),
        statement('SELECT id, note, at FROM piped WHERE id = ANY($1::int[]) ORDER BY id', ['{1,2}']),
        statement('UPDATE piped SET note = $1::text WHERE id = 2', ['two']),
      ],
      types,
    ).finally(() => connection.off('readyForQuery', count));
    expect(readyForQuery).toBe(1);
    expect(results.map((result) => [result.command, result.rowCount])).toEqual([
      ['INSERT', 2],
      ['SELECT', 2],
      ['UPDATE', 1],
    ]);
    expect(results[1].rows).toEqual([
      { id: 1, note: 'one', at: new Date('2026-01-02T03:04:05Z') },
      { id: 2, note: null, at: null },
    ]);
    expect(results[1].fields.map((field) => field.name)).toEqual(['id', 'note', 'at']);
  });

  it('parses rows with the type parsers it is given (those of the connection)', async () => {
    const asText = new TypeOverrides();
    asText.setTypeParser(1184, (text: string) => `as text: ${text.slice(0, 4)}`);
    const [result] = await sendPipeline(client, [statement('SELECT $1::timestamptz AS at', ['2026-01-02T03:04:05Z'])], asText);
    expect(result.rows).toEqual([{ at: 'as text: 2026' }]);
  });

  it('runs the statements in one transaction block when the first is BEGIN, and nothing after a failure', async () => {
    const failure = await sendPipeline(
      client,
      [
        statement('BEGIN'),
        statement('INSERT INTO piped (id) VALUES ($1::int)', ['10']),
        statement('INSERT INTO piped (id) VALUES ($1::int)', ['1']), // exists: unique violation
        statement('INSERT INTO piped (id) VALUES ($1::int)', ['11']),
        statement('COMMIT'),
      ],
      types,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PipelineError);
    expect((failure as PipelineError).statementIndex).toBe(2);
    expect((failure as PipelineError).cause).toMatchObject({ code: '23505' });
    // PostgreSQL skipped the rest up to the Sync: the transaction is open and aborted.
    await expect(client.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' });
    await client.query('ROLLBACK');
    expect((await client.query('SELECT id FROM piped WHERE id >= 10')).rows).toEqual([]);
  });

  it('leaves the connection ready for the next query after a statement that does not parse', async () => {
    const failure = await sendPipeline(client, [statement('SELECT $1::int AS n', ['5']), statement('SELEC 1')], types).catch((error: unknown) => error);
    expect(failure).toMatchObject({ statementIndex: 1, cause: { code: '42601' } });
    expect((await client.query('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
  });

  it('binds a prepared statement once pg has parsed it on the connection, and never parses it twice', async () => {
    const prepared: Statement = { name: 'piped_note', text: 'SELECT note FROM piped WHERE id = $1::int', values: ['1'] };
    expect(canPipeline(client, prepared)).toBe(false);
    expect(() => sendPipeline(client, [prepared], types)).toThrow(/not parsed on this connection/);
    expect((await send(client, prepared)).rows).toEqual([{ note: 'one' }]);
    expect(canPipeline(client, prepared)).toBe(true);
    const results = await sendPipeline(client, [{ ...prepared, values: ['2'] }, { ...prepared, values: ['1'] }], types);
    expect(results.map((result) => result.rows)).toEqual([[{ note: 'two' }], [{ note: 'one' }]]);
    // Still exactly one prepared statement of that name, and pg's own query still binds it.
    expect((await client.query("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'piped_note'")).rows).toEqual([{ n: 1 }]);
    expect((await send(client, prepared)).rows).toEqual([{ note: 'one' }]);
  });

  it('queues behind a query already running on the connection, as any pg query does', async () => {
    const slow = client.query('SELECT pg_sleep(0.05), 1 AS n');
    const piped = sendPipeline(client, [statement('SELECT $1::int AS n', ['2'])], types);
    await expect(slow).resolves.toMatchObject({ rows: [{ n: 1 }] });
    await expect(piped).resolves.toMatchObject([{ rows: [{ n: 2 }] }]);
  });
});
