import { Client, Query } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../testing';
import { beginThenStatement } from './begin-pipeline';
import type { Statement } from './pinned-transaction';

/**
 * begin-pipeline.ts writes protocol messages through pg's internals. Should a pg upgrade change
 * any of them, these fail and say which; then fix that module or drop it (transactions then send
 * BEGIN on its own: one round trip more each, see docs/benchmarks.md).
 */
describe("begin-pipeline: what it relies on in pg's internals", () => {
  let database: TestDatabase;
  let client: Client;
  const wire = () => (client as unknown as { connection: { parsedStatements: Record<string, string>; sync(): void; parse(message: unknown): void } }).connection;
  const inTransaction = async () =>
    (await client.query<{ open: boolean }>('SELECT statement_timestamp() > transaction_timestamp() AS open')).rows[0].open;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await database.drop();
  });
  afterEach(async () => {
    await client.query('ROLLBACK');
  });

  it('pg still exposes the hooks it overrides and calls', () => {
    const query = Query.prototype as unknown as Record<string, unknown>;
    expect({ prepare: typeof query['prepare'], _getRows: typeof query['_getRows'], submit: typeof query['submit'] }).toEqual({
      prepare: 'function',
      _getRows: 'function',
      submit: 'function',
    });
    expect(wire().parsedStatements).toEqual(expect.any(Object));
  });

  it('pg records a named statement it parsed in connection.parsedStatements', async () => {
    await client.query({ name: 'pipeline_probe_named', text: 'SELECT $1::int AS n', values: ['1'] });
    expect(wire().parsedStatements['pipeline_probe_named']).toBe('SELECT $1::int AS n');
  });

  it.each([
    ['an unnamed statement', { text: 'SELECT $1::int + 1 AS n', values: ['41'] }],
    ['a named statement', { name: 'pipeline_probe', text: 'SELECT $1::int + 1 AS n', values: ['41'] }],
  ] as Array<[string, Statement]>)('sends BEGIN and %s with one Sync, and answers the statement\'s rows', async (_kind, statement) => {
    const sync = jest.spyOn(wire(), 'sync');
    try {
      const result = await beginThenStatement(client, 'begin', statement);
      expect(result.rows).toEqual([{ n: 42 }]);
      expect(sync).toHaveBeenCalledTimes(1);
    } finally {
      sync.mockRestore();
    }
    expect(await inTransaction()).toBe(true);
  });

  it('parses a named statement once per connection', async () => {
    const statement = { name: 'pipeline_probe_once', text: 'SELECT $1::text AS s', values: ['x'] };
    const parse = jest.spyOn(wire(), 'parse');
    try {
      await beginThenStatement(client, 'begin', statement);
      await client.query('ROLLBACK');
      await beginThenStatement(client, 'begin', statement);
      // BEGIN is parsed each time; the statement only the first.
      expect(parse.mock.calls.map(([message]) => (message as { text: string }).text)).toEqual([statement.text, 'begin', 'begin']);
    } finally {
      parse.mockRestore();
    }
  });

  it('runs nothing, BEGIN included, when a named statement does not parse, and leaves it unrecorded', async () => {
    const broken = { name: 'pipeline_probe_broken', text: 'SELECT $1::int FROM no_such_table', values: ['1'] };
    await expect(beginThenStatement(client, 'begin', broken)).rejects.toThrow(/no_such_table/);
    expect(wire().parsedStatements['pipeline_probe_broken']).toBeUndefined();
    expect(await inTransaction()).toBe(false);
  });
});
