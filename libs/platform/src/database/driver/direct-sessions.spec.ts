import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { createOrm, type Orm } from '../orm';
import { platformModule } from '../../platform-module';
import { withSession } from '../session';

/**
 * Behind a transaction pooler `withSession` work runs on PostgreSQL itself, on a small pool of its
 * own (decision 159). The pooler mode works straight on PostgreSQL too, so this runs in every pass.
 */
describe('withSession behind a transaction pooler', () => {
  let database: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await createOrm({ databaseUrl: database.url, pooler: 'transaction', directUrl: database.directUrl, modules: [platformModule], poolSize: 2, statementTimeoutMs: 2_000, sessionStatementTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await orm.close(true);
    await database.drop();
  });

  const sleepingSessions = async (): Promise<number> => {
    const [row] = await orm.em
      .fork()
      .execute<Array<{ n: number }>>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'SELECT pg_sleep(0.3)%'");
    return row.n;
  };

  it('holds at most two direct sessions at once however many callers come, and serves them all in turn', async () => {
    let most = 0;
    let done = false;
    const watching = (async () => {
      while (!done) {
        most = Math.max(most, await sleepingSessions());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 5 }, (_, index) => withSession(orm.em, async (run) => (await run('SELECT pg_sleep(0.3), ? AS n', [index]))[0])));
    done = true;
    await watching;
    expect(answers.map((row) => Number((row as { n: unknown }).n))).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it("runs with the session's limit, while the pooled connections keep their own", async () => {
    const [inside] = await withSession(orm.em, (run) => run<{ statement_timeout: string }>('SHOW statement_timeout'));
    expect(inside.statement_timeout).toBe('5s');
    const [pooled] = await orm.em.fork().execute<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
    expect(pooled.statement_timeout).toBe('2s');
  });

  it('closes a session whose work failed: a session advisory lock it held is released', async () => {
    const failure = await withSession(orm.em, async (run) => {
      await run('SELECT pg_advisory_lock(4242)');
      throw new Error('work failed');
    }).catch((error: Error) => error.message);
    expect(failure).toBe('work failed');
    // Asked from another session (a lock is re-entrant for the session that holds it).
    const [row] = await orm.em.fork().execute<Array<{ locked: boolean }>>('SELECT pg_try_advisory_xact_lock(4242) AS locked');
    expect(row.locked).toBe(true);
  });

  it('gives back the failure of a session that died under its work, and the next session is served', async () => {
    const failure = await withSession(orm.em, async (run) => {
      const [self] = await run<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await orm.em.fork().execute('SELECT pg_terminate_backend(?)', [self.pid]);
      await run('SELECT 1');
      return 'answered';
    }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    const [row] = await withSession(orm.em, (run) => run<{ n: number }>('SELECT 2 AS n'));
    expect(Number(row.n)).toBe(2);
  });
});
