import { createTestOrm, type TestOrm } from '../../testing';
import { platformModule } from '../platform-module';
import { executePrepared, holdConnection } from './execute-prepared';
import { preparedStatement } from './prepared-statement';
import { runInTransaction } from './transaction';

const backendPid = preparedStatement('SELECT pg_backend_pid() AS pid', { purpose: 'connection identity', indexes: [] });
const failing = preparedStatement('SELECT 1 / $1::int AS quotient', { purpose: 'division', indexes: [] });

describe('ConnectionHold (one pooled connection per request)', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  const pidOn = async (em = db.orm.em.fork()) => (await executePrepared<{ pid: number }>(em, backendPid, []))[0].pid;
  const pool = () => db.orm.em.getConnection().getKnex().client.pool as { numUsed(): number; numFree(): number };

  it('runs the statements and the transaction of one context on the connection of its first statement', async () => {
    const em = db.orm.em.fork();
    const hold = holdConnection(em);
    try {
      const first = await pidOn(em);
      // Between statements the connection stays taken: it is not back in the pool.
      expect(pool().numUsed()).toBe(1);
      expect(await pidOn(em)).toBe(first);
      const inTransaction = await runInTransaction(em, (tx) => pidOn(tx));
      expect(inTransaction).toBe(first);
    } finally {
      await hold.end();
    }
    expect(pool().numUsed()).toBe(0);
  });

  it('takes from the pool once its transaction has the connection, and gives back everything at its end', async () => {
    const em = db.orm.em.fork();
    const hold = holdConnection(em);
    const first = await pidOn(em);
    await runInTransaction(em, async (tx) => {
      expect(await pidOn(tx)).toBe(first);
      // The same context outside the transaction meanwhile (what a concurrent lookup would do) gets another connection.
      expect(await pidOn(db.orm.em.fork())).not.toBe(first);
    });
    await hold.end();
    expect(pool().numUsed()).toBe(0);
    // An ended hold keeps nothing.
    await pidOn(em);
    expect(pool().numUsed()).toBe(0);
  });

  it('gives a connection whose statement failed back to the pool instead of keeping it', async () => {
    const em = db.orm.em.fork();
    const hold = holdConnection(em);
    try {
      await expect(executePrepared(em, failing, [0])).rejects.toThrow(/division by zero/);
      expect(pool().numUsed()).toBe(0);
      expect((await executePrepared<{ quotient: number }>(em, failing, [1]))[0].quotient).toBe(1);
      expect(pool().numUsed()).toBe(1);
    } finally {
      await hold.end();
    }
    expect(pool().numUsed()).toBe(0);
  });

  it('keeps one connection at most: statements of one context run side by side on two, and one goes back', async () => {
    const em = db.orm.em.fork();
    const hold = holdConnection(em);
    try {
      const pids = await Promise.all([pidOn(em), pidOn(em)]);
      expect(new Set(pids).size).toBe(2);
      expect(pool().numUsed()).toBe(1);
    } finally {
      await hold.end();
    }
    expect(pool().numUsed()).toBe(0);
  });

  it('refuses a second hold on one context', () => {
    const em = db.orm.em.fork();
    const hold = holdConnection(em);
    expect(() => holdConnection(em)).toThrow('This ORM context already holds a connection');
    return hold.end();
  });
});
