import { Pool } from 'pg';
import { createOrm, invokeProcedure, noopEventDispatcher, platformModule, systemPrincipal, type Orm } from '@mrp/platform';
import { createTestOrm, flagsAllOff, silentLogger, type TestOrm } from '@mrp/platform/testing';
import { authzModule } from '../authz-module';
import { PostgresRateLimiter } from './postgres-rate-limiter';
import { PRUNE_RATE_LIMIT_BUCKETS, pruneRateLimitBuckets } from './prune-buckets-procedure';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgresRateLimiter', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule, authzModule]);
  });
  afterAll(() => db.close());

  const bucket = async (key: string) =>
    (await db.orm.em.fork().execute('SELECT tokens FROM rate_limit_buckets WHERE bucket_key = ?', [key]))[0] as
      | { tokens: number }
      | undefined;

  it('admits the burst with remaining 19..0, then denies with Retry-After >= 1', async () => {
    // A near-zero rate keeps the refill during the test below a whole token.
    const limiter = new PostgresRateLimiter(db.orm, { ratePerSecond: 0.01, burst: 20 });
    const decisions = [];
    for (let i = 0; i < 20; i++) decisions.push(await limiter.take('api-key:seq'));
    expect(decisions.every((decision) => decision.allowed && decision.limit === 20)).toBe(true);
    expect(decisions.map((decision) => decision.remaining)).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const denied = await limiter.take('api-key:seq');
    expect(denied).toMatchObject({ allowed: false, limit: 20, remaining: 0 });
    expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(90); // ~1 token at 0.01/s is ~100 s away
  });

  it('consumes nothing when it denies: tokens never go negative', async () => {
    const limiter = new PostgresRateLimiter(db.orm, { ratePerSecond: 0.01, burst: 2 });
    for (let i = 0; i < 10; i++) await limiter.take('api-key:deny');
    const { tokens } = (await bucket('api-key:deny'))!;
    expect(tokens).toBeGreaterThanOrEqual(0);
    expect(tokens).toBeLessThan(0.01);
  });

  it('refills by database time at the configured rate', async () => {
    const limiter = new PostgresRateLimiter(db.orm, { ratePerSecond: 10, burst: 5 });
    for (let i = 0; i < 5; i++) expect((await limiter.take('api-key:refill')).allowed).toBe(true);
    const denied = await limiter.take('api-key:refill');
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterSeconds).toBe(1);
    await sleep(1000); // 10 tokens' worth at 10/s, capped at the burst of 5
    const after = [];
    for (let i = 0; i < 6; i++) after.push(await limiter.take('api-key:refill'));
    expect(after.slice(0, 5).every((decision) => decision.allowed)).toBe(true);
    expect(after[0].remaining).toBe(4);
    expect(after[5].allowed).toBe(false);
  });

  describe('under concurrency, across separate connections (two ORMs and a plain pg pool)', () => {
    let second: Orm;
    let pool: Pool;
    beforeAll(async () => {
      second = await createOrm({ ...db.database.ormOptions, modules: [platformModule, authzModule], poolSize: 8 });
      pool = new Pool({ connectionString: db.database.url, max: 8 });
    });
    afterAll(async () => {
      await pool.end();
      await second.close(true);
    });

    async function hammer(bucketKey: string, settings: { ratePerSecond: number; burst: number }, requests: number) {
      const limiters = [db.orm, second, pool].map((database) => new PostgresRateLimiter(database, settings));
      const startedAt = Date.now();
      const decisions = await Promise.all(Array.from({ length: requests }, (_, i) => limiters[i % limiters.length].take(bucketKey)));
      return { decisions, windowSeconds: (Date.now() - startedAt) / 1000 };
    }

    it('admits exactly the burst when the refill is negligible', async () => {
      const { decisions } = await hammer('api-key:contended-exact', { ratePerSecond: 0.001, burst: 20 }, 120);
      const admitted = decisions.filter((decision) => decision.allowed);
      expect(admitted).toHaveLength(20);
      // Every admitted take saw its own token: the remainders are 19..0, each exactly once.
      expect(admitted.map((decision) => decision.remaining).sort((a, b) => b - a)).toEqual(
        Array.from({ length: 20 }, (_, i) => 19 - i),
      );
      expect(decisions.filter((decision) => !decision.allowed).every((decision) => decision.retryAfterSeconds >= 1)).toBe(true);
    });

    it('admits the burst plus at most the refill of the test window, never more', async () => {
      const settings = { ratePerSecond: 5, burst: 20 };
      const { decisions, windowSeconds } = await hammer('api-key:contended-refill', settings, 200);
      const admitted = decisions.filter((decision) => decision.allowed).length;
      expect(admitted).toBeGreaterThanOrEqual(settings.burst);
      expect(admitted).toBeLessThanOrEqual(settings.burst + Math.floor(windowSeconds * settings.ratePerSecond));
      expect(admitted).toBeLessThan(200);
    });
  });

  it('keeps buckets apart', async () => {
    const limiter = new PostgresRateLimiter(db.orm, { ratePerSecond: 0.01, burst: 1 });
    expect((await limiter.take('api-key:a')).allowed).toBe(true);
    expect((await limiter.take('api-key:a')).allowed).toBe(false);
    expect((await limiter.take('api-key:b')).allowed).toBe(true);
  });

  it('prunes only buckets idle long enough to be full again', async () => {
    const settings = { ratePerSecond: 1, burst: 60 };
    const limiter = new PostgresRateLimiter(db.orm, settings);
    await limiter.take('api-key:idle');
    await limiter.take('api-key:busy');
    await db.orm.em.fork().execute(`UPDATE rate_limit_buckets SET updated_at = clock_timestamp() - interval '61 seconds' WHERE bucket_key = ?`, [
      'api-key:idle',
    ]);
    const prune = (permissions: string[]) =>
      invokeProcedure<{ processed: number }>(
        pruneRateLimitBuckets,
        settings,
        { em: db.orm.em.fork(), principal: systemPrincipal('prune-rate-limit-buckets', { permissions }), correlationId: 'test-prune' },
        { dispatcher: noopEventDispatcher, logger: silentLogger, flags: flagsAllOff },
      );
    // Only the task's own principal may prune.
    await expect(prune([])).rejects.toMatchObject({ code: 'forbidden' });
    expect(await bucket('api-key:idle')).toBeDefined();
    expect((await prune([PRUNE_RATE_LIMIT_BUCKETS])).processed).toBeGreaterThanOrEqual(1);
    expect(await bucket('api-key:idle')).toBeUndefined();
    expect(await bucket('api-key:busy')).toBeDefined();
  });
});
