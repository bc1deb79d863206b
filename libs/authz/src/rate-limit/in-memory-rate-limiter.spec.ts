import { InMemoryRateLimiter } from './in-memory-rate-limiter';

function limiterWithClock(settings = { ratePerSecond: 5, burst: 20 }) {
  let nowMs = 1_000_000;
  const limiter = new InMemoryRateLimiter({ ...settings, now: () => nowMs });
  return { limiter, advance: (ms: number) => (nowMs += ms) };
}

async function takeMany(limiter: InMemoryRateLimiter, key: string, count: number) {
  const decisions = [];
  for (let i = 0; i < count; i++) decisions.push(await limiter.take(key));
  return decisions;
}

describe('InMemoryRateLimiter', () => {
  it('admits the burst with remaining 19..0, then denies with Retry-After', async () => {
    const { limiter } = limiterWithClock();
    const burst = await takeMany(limiter, 'k', 20);
    expect(burst.every((decision) => decision.allowed && decision.limit === 20)).toBe(true);
    expect(burst.map((decision) => decision.remaining)).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(await limiter.take('k')).toEqual({ allowed: false, limit: 20, remaining: 0, retryAfterSeconds: 1, resetSeconds: 4 });
  });

  it('refills at the rate, and a denied request consumes nothing', async () => {
    const { limiter, advance } = limiterWithClock();
    await takeMany(limiter, 'k', 20);
    advance(100); // half a token at 5/s
    expect((await limiter.take('k')).allowed).toBe(false);
    advance(100); // the denied take did not eat the half: now exactly one
    expect(await limiter.take('k')).toMatchObject({ allowed: true, remaining: 0 });
    advance(1000); // five more
    const refilled = await takeMany(limiter, 'k', 6);
    expect(refilled.map((decision) => decision.allowed)).toEqual([true, true, true, true, true, false]);
    expect(refilled.map((decision) => decision.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
  });

  it('never holds more than the burst, however long the bucket idles', async () => {
    const { limiter, advance } = limiterWithClock();
    await limiter.take('k');
    advance(3_600_000);
    expect(await limiter.take('k')).toMatchObject({ allowed: true, remaining: 19 });
  });

  it('computes Retry-After as whole seconds until one token, at least 1', async () => {
    const { limiter, advance } = limiterWithClock({ ratePerSecond: 0.25, burst: 1 });
    expect((await limiter.take('slow')).allowed).toBe(true);
    expect(await limiter.take('slow')).toMatchObject({ allowed: false, retryAfterSeconds: 4 });
    advance(2500);
    expect(await limiter.take('slow')).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    advance(1400);
    expect(await limiter.take('slow')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('keeps buckets apart', async () => {
    const { limiter } = limiterWithClock({ ratePerSecond: 1, burst: 2 });
    await takeMany(limiter, 'a', 2);
    expect((await limiter.take('a')).allowed).toBe(false);
    expect(await limiter.take('b')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('does not mint tokens when the clock steps back', async () => {
    const { limiter, advance } = limiterWithClock({ ratePerSecond: 1, burst: 2 });
    await takeMany(limiter, 'k', 2);
    advance(-10_000);
    expect((await limiter.take('k')).allowed).toBe(false);
    advance(10_500);
    expect((await limiter.take('k')).allowed).toBe(false);
    advance(500);
    expect((await limiter.take('k')).allowed).toBe(true);
  });

  it('forgets only buckets that have refilled', async () => {
    const { limiter, advance } = limiterWithClock({ ratePerSecond: 1, burst: 3 });
    await limiter.take('old');
    advance(3000);
    await limiter.take('fresh');
    expect(limiter.prune()).toBe(1);
    expect(await limiter.take('fresh')).toMatchObject({ remaining: 1 });
  });

  it('rejects nonsense settings and empty keys', async () => {
    expect(() => new InMemoryRateLimiter({ ratePerSecond: 0, burst: 20 })).toThrow('ratePerSecond');
    expect(() => new InMemoryRateLimiter({ ratePerSecond: 5, burst: 0.5 })).toThrow('burst');
    await expect(new InMemoryRateLimiter({ ratePerSecond: 5, burst: 20 }).take('')).rejects.toThrow('bucket key');
  });
});
