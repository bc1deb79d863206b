import type { EntityManager, LoggingOptions } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { createTestOrm, databaseUrl, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '../platform-module';
import { cancelStatements, forgetCancelledStatements } from './cancel-statements';
import { databaseFailure } from './database-failures';
import { executePrepared } from './driver/execute-prepared';
import { preparedStatement } from './driver/prepared-statement';
import { withSession } from './session';
import { runInTransaction } from './transaction';

/** What a request's statements carry: its EntityManager's id, so they can be cancelled. */
const ownedBy = (em: EntityManager): LoggingOptions & { id: number } => ({ id: em.id });

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected the statement to fail');
}

describe('statement limits', () => {
  describe('statement timeout (a startup parameter of every pooled connection)', () => {
    let db: TestOrm;
    beforeAll(async () => {
      db = await createTestOrm([platformModule], { statementTimeoutMs: 300 });
    });
    afterAll(() => db.close());

    it('holds on every connection without a statement of its own', async () => {
      const [row] = await db.orm.em.fork().execute<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
      expect(row.statement_timeout).toBe('300ms');
    });

    it('stops a statement that runs longer, and the caller is told query_timeout with Retry-After, not a 500', async () => {
      const startedAt = Date.now();
      const error = await failureOf(db.orm.em.fork().execute('SELECT pg_sleep(5)'));
      expect(Date.now() - startedAt).toBeLessThan(4_000);
      expect(error).toMatchObject({ code: '57014' });
      const failure = databaseFailure(error);
      expect(failure).toMatchObject({ code: 'query_timeout', headers: { 'Retry-After': '5' } });
    });

    it('stops a statement of a transaction too, and the connection serves the next caller', async () => {
      const error = await failureOf(runInTransaction(db.orm.em.fork(), (em) => em.execute('SELECT pg_sleep(5)')));
      expect(databaseFailure(error)?.code).toBe('query_timeout');
      const rows = await Promise.all(Array.from({ length: 5 }, () => db.orm.em.fork().execute<Array<{ one: number }>>('SELECT 1 AS one')));
      expect(rows.flat()).toEqual(Array.from({ length: 5 }, () => ({ one: 1 })));
    });

    it('leaves every other error to be a 500', () => {
      expect(databaseFailure(new Error('relation "nothing" does not exist'))).toBeUndefined();
      expect(databaseFailure(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
    });
  });

  describe("withSession's work (index builds, advisory-lock waits)", () => {
    let db: TestOrm;
    beforeAll(async () => {
      // One connection: the session's and the next statement's are the same.
      db = await createTestOrm([platformModule], { poolSize: 1, statementTimeoutMs: 300, sessionStatementTimeoutMs: 5_000 });
    });
    afterAll(() => db.close());

    it("runs under the session's longer limit, and the connection goes back to the pool with the short one", async () => {
      const during = await withSession(db.orm.em.fork(), async (run) => {
        await run('SELECT pg_sleep(0.5)');
        return run<{ statement_timeout: string }>('SHOW statement_timeout');
      });
      expect(during[0].statement_timeout).toBe('5s');
      const [after] = await db.orm.em.fork().execute<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
      expect(after.statement_timeout).toBe('300ms');
      expect(databaseFailure(await failureOf(db.orm.em.fork().execute('SELECT pg_sleep(1)')))?.code).toBe('query_timeout');
    });
  });

  describe('a pool with no free connection in time', () => {
    let db: TestOrm;
    beforeAll(async () => {
      db = await createTestOrm([platformModule], { poolSize: 1, acquireTimeoutMs: 200 });
    });
    afterAll(() => db.close());

    it('is service_unavailable with Retry-After, not a 500', async () => {
      const holding = db.orm.em.fork().execute('SELECT pg_sleep(1)');
      const error = await failureOf(db.orm.em.fork().execute('SELECT 1'));
      await holding;
      expect(String(error)).toContain('Timeout acquiring a connection');
      expect(databaseFailure(error)).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': '5' } });
    });
  });

  describe('cancelStatements (the client went away)', () => {
    let db: TestOrm;
    const sleeping = async (): Promise<number> => {
      const rows = await db.orm.em
        .fork()
        .execute<Array<{ count: string }>>(
          "SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep(%' AND pid <> pg_backend_pid()",
        );
      return Number(rows[0].count);
    };
    const untilSleeping = async () => {
      for (let attempt = 0; attempt < 100 && (await sleeping()) === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await sleeping()).toBe(1);
    };
    /**
     * PostgreSQL sends a cancelled statement's error before its backend reports itself idle, so
     * the client can hear of the cancel a moment before pg_stat_activity does.
     */
    const untilNoneSleeping = async () => {
      for (let attempt = 0; attempt < 100 && (await sleeping()) > 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await sleeping()).toBe(0);
    };
    /**
     * The connections the process holds: PostgreSQL's backends of the database when the process
     * connects to it directly; behind PgBouncer, which keeps server connections of its own, its
     * clients of the database (its admin console's SHOW CLIENTS).
     */
    const connections = async (): Promise<number> => {
      if (db.database.env.DATABASE_POOLER === 'transaction') {
        const name = new URL(db.database.url).pathname.slice(1);
        const admin = new Client({ connectionString: databaseUrl(db.database.url, 'pgbouncer') });
        await admin.connect();
        try {
          const { rows } = await admin.query<{ database: string }>('SHOW CLIENTS');
          return rows.filter((row) => row.database === name).length;
        } finally {
          await admin.end();
        }
      }
      const rows = await db.orm.em.fork().execute<Array<{ count: string }>>('SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database()');
      return Number(rows[0].count);
    };

    beforeAll(async () => {
      db = await createTestOrm([platformModule]);
    });
    afterAll(() => db.close());

    it("cancels the context's running autocommit statement: it fails at once and PostgreSQL runs it no more", async () => {
      const em = db.orm.em.fork();
      const running = failureOf(em.execute('SELECT pg_sleep(30)', [], 'all', ownedBy(em)));
      await untilSleeping();
      const startedAt = Date.now();
      cancelStatements(em);
      const error = await running;
      expect(Date.now() - startedAt).toBeLessThan(5_000);
      expect(error).toMatchObject({ code: '57014' });
      await untilNoneSleeping();
      forgetCancelledStatements(em);
    });

    it('cancels a prepared statement of the context the same way', async () => {
      const em = db.orm.em.fork();
      const statement = preparedStatement('SELECT pg_sleep($1::float8)', { purpose: 'a statement to cancel', indexes: [] });
      const running = failureOf(executePrepared(em, statement, [30]));
      await untilSleeping();
      cancelStatements(em);
      expect(databaseFailure(await running)?.code).toBe('query_timeout');
      await untilNoneSleeping();
      forgetCancelledStatements(em);
    });

    it("cancels the statement of the context's transaction, which then rolls back", async () => {
      await db.orm.em.fork().execute('CREATE TABLE cancel_probe (id int)');
      const em = db.orm.em.fork();
      const running = failureOf(
        runInTransaction(em, async (tx) => {
          await tx.execute('INSERT INTO cancel_probe VALUES (1)');
          await tx.execute('SELECT pg_sleep(30)');
        }),
      );
      await untilSleeping();
      cancelStatements(em);
      expect(await running).toMatchObject({ code: '57014' });
      await untilNoneSleeping();
      expect(await db.orm.em.fork().execute('SELECT * FROM cancel_probe')).toEqual([]);
      forgetCancelledStatements(em);
    });

    it('refuses the next statements of a cancelled context until it is forgotten, and never cancels anyone else', async () => {
      const em = db.orm.em.fork();
      const other = db.orm.em.fork();
      const othersWork = other.execute<Array<{ done: string }>>("SELECT pg_sleep(0.3), 'yes' AS done", [], 'all', ownedBy(other));
      cancelStatements(em);
      expect(await failureOf(em.execute('SELECT 1', [], 'all', ownedBy(em)))).toMatchObject({ code: '57014' });
      expect((await othersWork)[0].done).toBe('yes');
      forgetCancelledStatements(em);
      expect(await em.execute('SELECT 1 AS one', [], 'all', ownedBy(em))).toEqual([{ one: 1 }]);
    });

    it('ends the connection that got a cancel request instead of pooling it, and the pool keeps serving', async () => {
      const em = db.orm.em.fork();
      const running = failureOf(em.execute('SELECT pg_sleep(30)', [], 'all', ownedBy(em)));
      await untilSleeping();
      const before = await connections();
      cancelStatements(em);
      await running;
      forgetCancelledStatements(em);
      for (let attempt = 0; attempt < 50 && (await connections()) >= before; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await connections()).toBeLessThan(before);
      const answers = await Promise.all(Array.from({ length: 8 }, () => db.orm.em.fork().execute<Array<{ one: number }>>('SELECT 1 AS one')));
      expect(answers.flat()).toHaveLength(8);
    });
  });
});
