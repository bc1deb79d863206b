import { Client } from 'pg';
import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { FeatureFlag } from '../feature-flags/feature-flag.entity';
import { platformModule } from '../platform-module';
import { flushIfNeeded, runInTransaction } from './transaction';

describe('runInTransaction', () => {
  let db: TestOrm;
  const fork = () => db.orm.em.fork();
  const flagKeys = async () =>
    (await fork().execute<Array<{ key: string }>>(`SELECT key FROM feature_flags WHERE key LIKE 'tx.%' ORDER BY key`)).map((row) => row.key);

  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  it('commits the work and leaves what it wrote managed by the context', async () => {
    const em = fork();
    const flag = await runInTransaction(em, async (tx) => tx.create(FeatureFlag, { key: 'tx.kept', enabled: true, updatedBy: 'test' }));
    expect(await flagKeys()).toContain('tx.kept');
    expect(em.getUnitOfWork(false).getById('FeatureFlag', 'tx.kept')).toBe(flag);
    expect(em.isInTransaction()).toBe(false);
  });

  it('rolls back and empties the context when the work fails', async () => {
    const em = fork();
    await expect(
      runInTransaction(em, async (tx) => {
        tx.create(FeatureFlag, { key: 'tx.undone', enabled: true, updatedBy: 'test' });
        await tx.flush();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await flagKeys()).not.toContain('tx.undone');
    expect([...em.getUnitOfWork(false).getIdentityMap()]).toEqual([]);
    await em.flush();
    expect(await flagKeys()).not.toContain('tx.undone');
  });

  it('nests as a savepoint inside a transaction the context already has', async () => {
    await fork().transactional(async (outer) => {
      outer.create(FeatureFlag, { key: 'tx.outer', enabled: true, updatedBy: 'test' });
      await outer.flush();
      await expect(
        runInTransaction(outer, async (inner) => {
          await inner.execute(`INSERT INTO feature_flags (key, enabled) VALUES ('tx.inner', true)`);
          throw new Error('inner only');
        }),
      ).rejects.toThrow('inner only');
    });
    const keys = await flagKeys();
    expect(keys).toContain('tx.outer');
    expect(keys).not.toContain('tx.inner');
  });

  it('nests as a savepoint of its own when the context holds nothing: a failure undoes the inner work alone, and the transaction goes on', async () => {
    await runInTransaction(fork(), async (outer) => {
      await outer.execute(`INSERT INTO feature_flags (key, enabled) VALUES ('tx.plain-outer', true)`);
      await expect(
        runInTransaction(outer, async (inner) => {
          inner.create(FeatureFlag, { key: 'tx.plain-inner', enabled: true, updatedBy: 'test' });
          await inner.flush();
          throw new Error('inner only');
        }),
      ).rejects.toThrow('inner only');
      // Nothing of the failed work is left managed, and the outer transaction still takes statements.
      expect([...outer.getUnitOfWork(false).getIdentityMap()]).toEqual([]);
      const kept = await runInTransaction(outer, async (inner) => inner.create(FeatureFlag, { key: 'tx.plain-kept', enabled: true, updatedBy: 'test' }));
      expect(outer.getUnitOfWork(false).getById('FeatureFlag', 'tx.plain-kept')).toBe(kept);
      await outer.execute(`INSERT INTO feature_flags (key, enabled) VALUES ('tx.plain-after', true)`);
    });
    const keys = await flagKeys();
    expect(keys).toEqual(expect.arrayContaining(['tx.plain-outer', 'tx.plain-kept', 'tx.plain-after']));
    expect(keys).not.toContain('tx.plain-inner');
  });

  it('rolls back the whole transaction when the outer work fails after a nested savepoint was kept', async () => {
    await expect(
      runInTransaction(fork(), async (outer) => {
        await runInTransaction(outer, async (inner) => inner.execute(`INSERT INTO feature_flags (key, enabled) VALUES ('tx.nested-undone', true)`));
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(await flagKeys()).not.toContain('tx.nested-undone');
  });

  it('works on entities the context already holds (through em.transactional)', async () => {
    await fork().execute(`INSERT INTO feature_flags (key, enabled) VALUES ('tx.loaded', false)`);
    const em = fork();
    const loaded = await em.findOneOrFail(FeatureFlag, { key: 'tx.loaded' });
    await runInTransaction(em, async (tx) => {
      const same = await tx.findOneOrFail(FeatureFlag, { key: 'tx.loaded' });
      same.enabled = true;
    });
    expect(loaded.enabled).toBe(true);
    const [{ enabled }] = await fork().execute<Array<{ enabled: boolean }>>(`SELECT enabled FROM feature_flags WHERE key = 'tx.loaded'`);
    expect(enabled).toBe(true);
  });
});

describe('flushIfNeeded', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  async function queriesDuring(work: () => Promise<unknown>): Promise<number> {
    const spy = jest.spyOn(Client.prototype, 'query');
    try {
      await work();
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }

  it('sends nothing when nothing is managed or queued', async () => {
    expect(await queriesDuring(() => flushIfNeeded(db.orm.em.fork()))).toBe(0);
  });

  it('flushes what is queued', async () => {
    const em = db.orm.em.fork();
    em.create(FeatureFlag, { key: 'flush.queued', enabled: true, updatedBy: 'test' });
    expect(await queriesDuring(() => flushIfNeeded(em))).toBeGreaterThan(0);
    expect(await db.orm.em.fork().findOne(FeatureFlag, { key: 'flush.queued' })).not.toBeNull();
  });

  it('flushes changes to entities already loaded', async () => {
    const em = db.orm.em.fork();
    const flag = await em.findOneOrFail(FeatureFlag, { key: 'flush.queued' });
    flag.enabled = false;
    await flushIfNeeded(em);
    expect((await db.orm.em.fork().findOneOrFail(FeatureFlag, { key: 'flush.queued' })).enabled).toBe(false);
  });
});
