import { PLATFORM_ADMIN, sessionToken, startTestApi, type TestApi } from '../support/test-api';
import { admissionOf, createOrganizationWithKey, type Admission, expectError, publicApi, rpcOk, sleep, type OrganizationWithKey } from '../support/public-api-fixtures';

const BURST = 5;
// A token every 5 s: a request may take seconds on a loaded machine without a token coming back
// while a test counts the bucket down.
const RATE_PER_SECOND = 0.2;
/** Long enough for two and a half tokens to come back: two whole requests, with half a token of slack either way. */
const TWO_AND_A_HALF_TOKENS_MS = (2.5 / RATE_PER_SECOND) * 1000;

/** CONTRACT "Limits" + DESIGN 6: a token bucket per key (capacity = burst, refill = rate/s), shared by every api process. */
describe('/api/v1 rate limit', () => {
  let first: TestApi;
  let second: TestApi;
  let org: OrganizationWithKey;
  beforeAll(async () => {
    const env = { PUBLIC_API_BURST: String(BURST), PUBLIC_API_RATE_PER_SECOND: String(RATE_PER_SECOND) };
    first = await startTestApi(env);
    // A second api process on the same database, as a deployment with two replicas.
    second = await startTestApi(env, { database: first.database });
    org = await createOrganizationWithKey(first);
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  const freshKey = async () => (await org.createKey({ name: `bucket ${Math.random()}` })).token;

  describe('the bucket admits exactly the burst, counting down, then 429 with Retry-After', () => {
    it('carries X-RateLimit-Limit and X-RateLimit-Remaining on every authenticated response, 4xx included', async () => {
      const client = publicApi(first, await freshKey());
      const admissions = [
        await admissionOf(await client.get('/me')),
        await admissionOf(await client.get('/models/nope')), // 404 after authentication
        await admissionOf(await client.get(`/models/${org.modelKey}/records?limit=0`)), // 400 after authentication
        await admissionOf(await client.get(`/models/${org.modelKey}/records`)),
        await admissionOf(await client.post(`/models/${org.modelKey}/records`, { data: { title: 'counted' } })),
      ];
      expect(admissions).toEqual([
        { status: 200, limit: '5', remaining: '4', retryAfter: null },
        { status: 404, limit: '5', remaining: '3', retryAfter: null },
        { status: 400, limit: '5', remaining: '2', retryAfter: null },
        { status: 200, limit: '5', remaining: '1', retryAfter: null },
        { status: 201, limit: '5', remaining: '0', retryAfter: null },
      ]);

      const denied = await client.get('/me');
      expect(denied.headers.get('x-ratelimit-limit')).toBe('5');
      expect(denied.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number.isInteger(Number(denied.headers.get('retry-after')))).toBe(true);
      // An empty bucket is full again no sooner than its next token is back.
      const reset = Number(denied.headers.get('x-ratelimit-reset'));
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThanOrEqual(Number(denied.headers.get('retry-after')));
      await expectError(denied, 429, 'rate_limited');
      // A denied request is refused before its handler: nothing was written.
      const writes = await client.post(`/models/${org.modelKey}/records`, { data: { title: 'not written' } });
      await expectError(writes, 429, 'rate_limited');
      const filter = encodeURIComponent(JSON.stringify({ field: 'title', op: 'eq', value: 'not written' }));
      const search = await publicApi(first, org.key.token).get(`/models/${org.modelKey}/records?filter=${filter}`);
      expect(((await search.json()) as { items: unknown[] }).items).toEqual([]);
    });

    it('refills at the rate: after a wait, exactly the refilled number pass', async () => {
      const client = publicApi(first, await freshKey());
      for (let i = 0; i < BURST; i++) expect((await client.get('/me')).status).toBe(200);
      expect((await client.get('/me')).status).toBe(429);

      await sleep(TWO_AND_A_HALF_TOKENS_MS);
      const afterWait = [];
      for (let i = 0; i < 3; i++) afterWait.push(await admissionOf(await client.get('/me')));
      expect(afterWait.map(({ status, remaining }) => ({ status, remaining }))).toEqual([
        { status: 200, remaining: '1' },
        { status: 200, remaining: '0' },
        { status: 429, remaining: '0' },
      ]);
    }, 60_000);

    it('keeps each key in its own bucket', async () => {
      const exhausted = publicApi(first, await freshKey());
      for (let i = 0; i < BURST; i++) await (await exhausted.get('/me')).arrayBuffer();
      expect((await exhausted.get('/me')).status).toBe(429);
      const other = await admissionOf(await publicApi(first, await freshKey()).get('/me'));
      expect(other).toMatchObject({ status: 200, remaining: '4' });
    });
  });

  describe('401s consume nothing', () => {
    it('a rejected key gets no bucket headers, never a 429, and its bucket is untouched when it works again', async () => {
      const key = await freshKey();
      const client = publicApi(first, key);
      expect(await admissionOf(await client.get('/me'))).toMatchObject({ status: 200, remaining: '4' });
      expect(await admissionOf(await client.get('/me'))).toMatchObject({ status: 200, remaining: '3' });

      const adminSession = await sessionToken(PLATFORM_ADMIN);
      await rpcOk(first, 'users.disable', { userId: org.owner.user.sub }, { token: adminSession });
      try {
        // More rejected requests than tokens left: had they consumed any, some would be 429s.
        for (let i = 0; i < BURST * 2; i++) {
          const rejected = await client.get('/me');
          expect(rejected.headers.get('x-ratelimit-limit')).toBeNull();
          expect(rejected.headers.get('x-ratelimit-remaining')).toBeNull();
          await expectError(rejected, 401, 'unauthorized');
        }
        for (const garbage of ['mrk_nope', `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`]) {
          const rejected = await publicApi(first, garbage).get('/me');
          expect(rejected.headers.get('x-ratelimit-remaining')).toBeNull();
          await expectError(rejected, 401, 'unauthorized');
        }
      } finally {
        await rpcOk(first, 'users.enable', { userId: org.owner.user.sub }, { token: adminSession });
      }
      const again = await admissionOf(await client.get('/me'));
      expect(again.status).toBe(200);
      // 3 tokens were left, plus whatever refilled meanwhile; the rejected requests took none.
      expect(Number(again.remaining)).toBeGreaterThanOrEqual(2);
    });
  });

  describe('two api processes share one bucket per key', () => {
    it('alternating requests across both processes count down one shared bucket', async () => {
      const key = await freshKey();
      const clients = [publicApi(first, key), publicApi(second, key)];
      const startedAt = Date.now();
      const admissions: Admission[] = [];
      for (let i = 0; i < 12; i++) admissions.push(await admissionOf(await clients[i % 2].get('/me')));
      const windowSeconds = (Date.now() - startedAt) / 1000;

      const admitted = admissions.filter((admission) => admission.status === 200);
      expect(admitted.length).toBeGreaterThanOrEqual(BURST);
      expect(admitted.length).toBeLessThanOrEqual(BURST + Math.floor(windowSeconds * RATE_PER_SECOND));
      expect(admissions.slice(0, BURST).map((admission) => admission.remaining)).toEqual(['4', '3', '2', '1', '0']);
      expect(admissions.filter((admission) => admission.status !== 200).every((admission) => admission.status === 429)).toBe(true);
      // Both processes denied some: neither kept a bucket of its own.
      expect(admissions.filter((admission, i) => admission.status === 429 && i % 2 === 0).length).toBeGreaterThan(0);
      expect(admissions.filter((admission, i) => admission.status === 429 && i % 2 === 1).length).toBeGreaterThan(0);
    });

    it('concurrent requests across both processes never admit more than burst plus the refill of the window', async () => {
      const key = await freshKey();
      const clients = [publicApi(first, key), publicApi(second, key)];
      const startedAt = Date.now();
      const admissions = await Promise.all(Array.from({ length: 30 }, async (_, i) => admissionOf(await clients[i % 2].get('/me'))));
      const windowSeconds = (Date.now() - startedAt) / 1000;

      const admitted = admissions.filter((admission) => admission.status === 200);
      expect(admitted.length).toBeGreaterThanOrEqual(BURST);
      expect(admitted.length).toBeLessThanOrEqual(BURST + Math.floor(windowSeconds * RATE_PER_SECOND));
      expect(admissions.every((admission) => admission.status === 200 || admission.status === 429)).toBe(true);
      expect(admissions.every((admission) => admission.limit === '5')).toBe(true);
    });
  });
});
