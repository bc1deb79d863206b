import { Client } from 'pg';
import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { freePort } from '../net/free-port';
import { platformModule } from '../platform-module';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from './orm';
import { databaseFailure } from './database-failures';
import { runInTransaction } from './transaction';

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected the work to fail');
}

/** Ends every other backend of the database, as a restart or a failover does. */
async function terminateBackends(url: string, matching = '%'): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE $1`,
      [matching],
    );
    return rowCount ?? 0;
  } finally {
    await client.end();
  }
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within 5 s');
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

describe('a database that is unreachable, or lost mid-request', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  const sleeping = async () => {
    const client = new Client({ connectionString: db.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%SELECT pg_sleep(10)%'",
      );
      return rows[0].n > 0;
    } finally {
      await client.end();
    }
  };

  it('is service_unavailable with Retry-After when its backend is terminated under a statement', async () => {
    const work = failureOf(db.orm.em.fork().execute('SELECT pg_sleep(10)'));
    await until(sleeping);
    expect(await terminateBackends(db.database.url, '%SELECT pg_sleep(10)%')).toBe(1);
    const failure = databaseFailure(await work);
    expect(failure).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': '2' } });
    expect(failure?.message).toMatch(/Idempotency-Key/);
  });

  it('is service_unavailable when the backend of a transaction is terminated, and the pool serves the next caller', async () => {
    const work = failureOf(runInTransaction(db.orm.em.fork(), (em) => em.execute('SELECT pg_sleep(10)')));
    await until(sleeping);
    await terminateBackends(db.database.url, '%SELECT pg_sleep(10)%');
    expect(databaseFailure(await work)?.code).toBe('service_unavailable');
    const rows = await Promise.all(Array.from({ length: 3 }, () => db.orm.em.fork().execute<Array<{ one: number }>>('SELECT 1 AS one')));
    expect(rows.flat()).toEqual([{ one: 1 }, { one: 1 }, { one: 1 }]);
  });

  it('is service_unavailable when no server listens where the database should be', async () => {
    const url = new URL(db.database.url);
    url.port = String(await freePort());
    // Not connected at start, as a process whose database went away after it started.
    const orm = await MikroORM.init({ ...ormOptions({ databaseUrl: url.toString(), modules: [platformModule], poolSize: 1, acquireTimeoutMs: 2_000 }), connect: false });
    try {
      const error = await failureOf(orm.em.fork().execute('SELECT 1'));
      expect(databaseFailure(error)).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': '2' } });
    } finally {
      await orm.close(true);
    }
  });

  it('leaves a statement the database refused for its own reasons a 500', async () => {
    const syntax = await failureOf(db.orm.em.fork().execute('SELEC 1'));
    expect(databaseFailure(syntax)).toBeUndefined();
    const missing = await failureOf(db.orm.em.fork().execute('SELECT * FROM no_such_table'));
    expect(databaseFailure(missing)).toBeUndefined();
  });
});
