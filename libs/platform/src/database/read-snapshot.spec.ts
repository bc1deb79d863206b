import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '../platform-module';
import { withReadSnapshot } from './read-snapshot';

describe('withReadSnapshot', () => {
  let db: TestOrm;
  const fork = () => db.orm.em.fork();
  const flagCount = async (em = fork()) =>
    Number((await em.execute<Array<{ count: string }>>(`SELECT count(*) FROM feature_flags WHERE key LIKE 'snapshot.%'`))[0].count);
  const addFlag = (key: string) =>
    fork().execute(`INSERT INTO feature_flags (key, enabled, updated_by, updated_at) VALUES (?, true, 'test', now())`, [key]);

  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  it('reads one snapshot in every statement: a row committed between two of them is not seen', async () => {
    const em = fork();
    const counts = await withReadSnapshot(em, {}, async (within) => {
      const first = await flagCount(within);
      await addFlag('snapshot.between');
      return [first, await flagCount(within)];
    });
    expect(counts[1]).toBe(counts[0]);
    // Outside it, the row is there.
    expect(await flagCount()).toBe(counts[0] + 1);
    expect(em.isInTransaction()).toBe(false);
  });

  it('refuses writes', async () => {
    await expect(withReadSnapshot(fork(), {}, (within) => within.execute(`DELETE FROM feature_flags WHERE key LIKE 'snapshot.%'`))).rejects.toThrow(
      /read-only transaction/,
    );
    expect(await flagCount()).toBeGreaterThan(0);
  });

  it('limits each statement to the timeout it is given, and only within it', async () => {
    const em = fork();
    await expect(withReadSnapshot(em, { statementTimeoutMs: 50 }, (within) => within.execute('SELECT pg_sleep(1)'))).rejects.toThrow(/statement timeout/);
    const [{ statement_timeout: after }] = await em.execute<Array<{ statement_timeout: string }>>('SHOW statement_timeout');
    expect(after).not.toBe('50ms');
  });

  it('refuses a timeout that is not a whole number of milliseconds, and a context already in a transaction', async () => {
    await expect(withReadSnapshot(fork(), { statementTimeoutMs: 1.5 }, async () => 1)).rejects.toThrow(/whole number of milliseconds/);
    await expect(fork().transactional((em) => withReadSnapshot(em, {}, async () => 1))).rejects.toThrow(/starts its own transaction/);
  });
});
