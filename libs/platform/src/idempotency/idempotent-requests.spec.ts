import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '../platform-module';
import { runInTransaction } from '../database/transaction';
import { claimIdempotencyKey, findStoredAnswer, lostToKeptAnswer, storeAnswer, storeAnswerAtCommit, type IdempotencyScope, type StoredAnswer } from './idempotent-requests';

const answer = (requestHash: string): StoredAnswer => ({ requestHash, status: 201, headers: { Location: '/api/v1/records/1' }, body: { id: '1', b: 1, a: 2 } });

describe('idempotent request storage', () => {
  let db: TestOrm;
  const em = () => db.orm.em.fork() as EntityManager;

  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  it('claims a key for one transaction at a time and reads its kept answer in the same statement', async () => {
    const scope: IdempotencyScope = { credentialId: 'api-key:one', key: 'order-1' };
    const holder = em();
    await holder.begin();
    try {
      expect(await claimIdempotencyKey(holder, scope)).toEqual({ locked: true });
      await runInTransaction(em(), async (other) => expect(await claimIdempotencyKey(other, scope)).toEqual({ locked: false }));
      expect(await storeAnswer(holder, scope, answer('hash-1'))).toBe(true);
    } finally {
      await holder.commit();
    }
    await runInTransaction(em(), async (tx) => expect(await claimIdempotencyKey(tx, scope)).toEqual({ locked: true, stored: answer('hash-1') }));
  });

  it('keeps an answer with COMMIT, and fails that commit (writing nothing of its transaction) over a live answer', async () => {
    const scope: IdempotencyScope = { credentialId: 'api-key:three', key: 'order-3' };
    await em().execute('CREATE TABLE IF NOT EXISTS idempotent_change (id int PRIMARY KEY)');
    await runInTransaction(em(), async (tx) => {
      await tx.execute('INSERT INTO idempotent_change (id) VALUES (1)');
      await storeAnswerAtCommit(tx, scope, answer('first'));
      // Not written yet: it travels with COMMIT.
      expect(await tx.execute('SELECT count(*)::int AS n FROM idempotent_requests WHERE key = ?', [scope.key])).toEqual([{ n: 0 }]);
    });
    expect(await findStoredAnswer(em(), scope)).toEqual(answer('first'));

    const lost = await runInTransaction(em(), async (tx) => {
      await tx.execute('INSERT INTO idempotent_change (id) VALUES (2)');
      await storeAnswerAtCommit(tx, scope, answer('second'));
    }).catch((error: unknown) => error);
    expect(lostToKeptAnswer(lost)).toBe(true);
    expect(lostToKeptAnswer(Object.assign(new Error('other key'), { code: '23505', constraint: 'records_pkey' }))).toBe(false);
    expect(await em().execute('SELECT id FROM idempotent_change ORDER BY id')).toEqual([{ id: 1 }]);
    expect(await findStoredAnswer(em(), scope)).toEqual(answer('first'));

    // An expired answer is replaced, as by storeAnswer.
    await em().execute(`UPDATE idempotent_requests SET expires_at = now() - interval '1 second' WHERE key = ?`, [scope.key]);
    await runInTransaction(em(), (tx) => storeAnswerAtCommit(tx, scope, answer('third')));
    expect((await findStoredAnswer(em(), scope))?.requestHash).toBe('third');
  });

  it('stores nothing over a live answer, so a request whose read missed it learns of it, and replaces an expired one', async () => {
    const scope: IdempotencyScope = { credentialId: 'api-key:two', key: 'order-2' };
    expect(await runInTransaction(em(), (tx) => storeAnswer(tx, scope, answer('first')))).toBe(true);
    expect(await runInTransaction(em(), (tx) => storeAnswer(tx, scope, answer('second')))).toBe(false);
    await em().execute(`UPDATE idempotent_requests SET expires_at = now() - interval '1 second' WHERE key = ?`, [scope.key]);
    await runInTransaction(em(), async (tx) => expect(await claimIdempotencyKey(tx, scope)).toEqual({ locked: true }));
    expect(await runInTransaction(em(), (tx) => storeAnswer(tx, scope, answer('third')))).toBe(true);
    await runInTransaction(em(), async (tx) => expect((await claimIdempotencyKey(tx, scope)).stored?.requestHash).toBe('third'));
  });
});
