import { PLATFORM_ADMIN, sessionToken, startTestApi, type TestApi } from '../support/test-api';
import {
  createOrganizationWithKey,
  expectError,
  publicApi,
  queryDatabase,
  rpcOk,
  sleep,
  admissionOf,
  type OrganizationWithKey,
} from '../support/public-api-fixtures';

const bucketHeaders = (response: Response) => ({
  limit: response.headers.get('x-ratelimit-limit'),
  remaining: response.headers.get('x-ratelimit-remaining'),
});

/**
 * Retry-After is ceil((1 - tokens left) / rate): right after the take that emptied the bucket it is
 * ceil(1 / rate). `elapsedSeconds` bounds the refill between that take and the denied one from
 * above, so the header lies in [ceil((1 - rate * elapsed) / rate), ceil(1 / rate)]: a single value
 * whenever the two requests were close enough in time.
 */
function retryAfterBounds(ratePerSecond: number, elapsedSeconds: number): { min: number; max: number } {
  return {
    min: Math.max(1, Math.ceil((1 - Math.min(1, ratePerSecond * elapsedSeconds)) / ratePerSecond - 1e-9)),
    max: Math.ceil(1 / ratePerSecond - 1e-9),
  };
}

/**
 * CONTRACT "Limits" + DESIGN 6 with the operator's settings: the defaults (5/s, burst 20), the
 * PUBLIC_API_RATE_PER_SECOND / PUBLIC_API_BURST overrides, the opt-in in-memory store, and the
 * bucket headers on every authenticated answer.
 */
describe('/api/v1 rate limit settings', () => {
  // Owns the database, the organization and its keys; the other apps below share that database.
  let api: TestApi;
  let org: OrganizationWithKey;
  beforeAll(async () => {
    // A bucket of 10 refilled at one token per 100 s: the headers below count down exactly.
    api = await startTestApi({ PUBLIC_API_BURST: '10', PUBLIC_API_RATE_PER_SECOND: '0.01' });
    org = await createOrganizationWithKey(api);
  });
  afterAll(() => api.close());

  const freshKey = async (request: { fullAccess?: boolean; permissions?: string[] } = {}) =>
    (await org.createKey({ name: `bucket ${Math.random()}`, ...request })).token;

  describe('X-RateLimit-Limit and X-RateLimit-Remaining are exact on authenticated 403, 413, 415 and 500 answers', () => {
    const EXPLODING_TITLE = 'Explode in the database';
    beforeAll(async () => {
      // A database failure the handler does not expect: an insert of this one title raises.
      await queryDatabase(
        api,
        `CREATE FUNCTION explode_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.title = '${EXPLODING_TITLE}' THEN
             RAISE EXCEPTION 'secret internals at /srv/app/handler.ts:42';
           END IF;
           RETURN NEW;
         END $$`,
      );
      await queryDatabase(api, 'CREATE TRIGGER explode_on_insert BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION explode_on_insert()');
    });
    afterAll(async () => {
      await queryDatabase(api, 'DROP TRIGGER explode_on_insert ON records');
      await queryDatabase(api, 'DROP FUNCTION explode_on_insert()');
    });

    it('each answer takes one token and says what is left: 403, 413, 415, 500, then 201', async () => {
      // Limited to records.create: reading models is forbidden, creating records is not.
      const token = await freshKey({ fullAccess: false, permissions: ['records.create'] });
      const records = `/models/${org.modelKey}/records`;
      const send = (body: string, contentType: string) =>
        api.request(`/api/v1${records}`, { method: 'POST', token, body, headers: { 'Content-Type': contentType } });

      const forbidden = await publicApi(api, token).get('/models');
      expect(bucketHeaders(forbidden)).toEqual({ limit: '10', remaining: '9' });
      expect((await expectError(forbidden, 403, 'forbidden')).message).toContain('data-models.read');

      const tooLarge = await send(JSON.stringify({ data: { title: 'big', notes: 'x'.repeat(1024 * 1024) } }), 'application/json');
      expect(bucketHeaders(tooLarge)).toEqual({ limit: '10', remaining: '8' });
      await expectError(tooLarge, 413, 'payload_too_large');

      const notJson = await send(JSON.stringify({ data: { title: 'typed wrong' } }), 'text/plain');
      expect(bucketHeaders(notJson)).toEqual({ limit: '10', remaining: '7' });
      await expectError(notJson, 415, 'unsupported_media_type');

      const failed = await send(JSON.stringify({ data: { title: EXPLODING_TITLE } }), 'application/json');
      expect(bucketHeaders(failed)).toEqual({ limit: '10', remaining: '6' });
      expect(failed.status).toBe(500);
      expect(failed.headers.get('x-request-id')).toBeTruthy();
      expect(failed.headers.get('retry-after')).toBeNull();
      const text = await failed.text();
      expect(JSON.parse(text)).toEqual({
        error: { code: 'internal_error', message: 'Something went wrong on our side; the request id identifies it', requestId: expect.any(String) },
      });
      expect(text).not.toMatch(/secret internals|handler\.ts|\n\s+at |node_modules/);

      const created = await send(JSON.stringify({ data: { title: 'After the failures' } }), 'application/json');
      expect(bucketHeaders(created)).toEqual({ limit: '10', remaining: '5' });
      expect(created.status).toBe(201);
      // Nothing of the failed requests was written.
      const titles = await queryDatabase<{ title: string }>(api, 'SELECT title FROM records WHERE organization_id = $1 ORDER BY title', [
        org.organizationId,
      ]);
      expect(titles.map((row) => row.title)).toEqual(['After the failures']);
    });
  });

  describe('429 carries Retry-After = ceil(1 / rate) seconds right after the burst (PUBLIC_API_RATE_PER_SECOND may be fractional)', () => {
    it.each([
      ['0.1', 10],
      ['0.4', 3],
    ])('at PUBLIC_API_RATE_PER_SECOND=%s with burst 1 the first denied request says Retry-After: %i', async (rate, expected) => {
      const ratePerSecond = Number(rate);
      const strict = await startTestApi({ PUBLIC_API_BURST: '1', PUBLIC_API_RATE_PER_SECOND: rate }, { database: api.database });
      try {
        const client = publicApi(strict, await freshKey());
        const startedAt = performance.now();
        expect(await admissionOf(await client.get('/me'))).toEqual({ status: 200, limit: '1', remaining: '0', retryAfter: null });
        const denied = await client.get('/me');
        const elapsedSeconds = (performance.now() - startedAt) / 1000;
        expect(bucketHeaders(denied)).toEqual({ limit: '1', remaining: '0' });
        const retryAfter = denied.headers.get('retry-after');
        expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
        const { min, max } = retryAfterBounds(ratePerSecond, elapsedSeconds);
        expect(max).toBe(expected);
        // A single value unless the machine stalled between the two requests.
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(min);
        expect(Number(retryAfter)).toBeLessThanOrEqual(max);
        if (elapsedSeconds < 0.5) expect(Number(retryAfter)).toBe(expected);
        const error = await expectError(denied, 429, 'rate_limited');
        expect(error.message).toBe(`Rate limit exceeded; retry in ${retryAfter} s`);
      } finally {
        await strict.close();
      }
    });
  });

  describe('the defaults without PUBLIC_API_RATE_PER_SECOND and PUBLIC_API_BURST: burst 20, 5 requests per second', () => {
    const DEFAULT_BURST = 20;
    const DEFAULT_RATE = 5;
    let defaults: TestApi;
    beforeAll(async () => {
      defaults = await startTestApi({}, { database: api.database });
    });
    afterAll(() => defaults.close());

    it('X-RateLimit-Limit is 20; of 30 immediate requests only the burst passes (plus what refilled at 5/s meanwhile), then it refills at 5/s', async () => {
      expect(defaults.config).toMatchObject({ publicApiBurst: DEFAULT_BURST, publicApiRatePerSecond: DEFAULT_RATE });
      const client = publicApi(defaults, await freshKey());
      const startedAt = performance.now();
      expect(await admissionOf(await client.get('/me'))).toEqual({ status: 200, limit: '20', remaining: '19', retryAfter: null });

      const rest = await Promise.all(Array.from({ length: 29 }, async () => admissionOf(await client.get('/me'))));
      const burstSeconds = (performance.now() - startedAt) / 1000;
      const burstAdmitted = 1 + rest.filter((admission) => admission.status === 200).length;
      expect(rest.every((admission) => admission.limit === '20')).toBe(true);
      expect(rest.every((admission) => admission.status === 200 || admission.status === 429)).toBe(true);
      expect(rest.filter((admission) => admission.status === 429).every((admission) => admission.remaining === '0')).toBe(true);
      expect(burstAdmitted).toBeGreaterThanOrEqual(DEFAULT_BURST);
      // With the requests within 0.2 s of each other this is exactly 20: the 21st is a 429.
      expect(burstAdmitted).toBeLessThanOrEqual(Math.floor(DEFAULT_BURST + DEFAULT_RATE * burstSeconds));

      // A wait of over a second refills at least 5 tokens; sequential requests then pass until the bucket is dry again.
      await sleep(1100);
      let refillAdmitted = 0;
      for (;;) {
        const admission = await admissionOf(await client.get('/me'));
        if (admission.status !== 200) {
          expect(admission).toMatchObject({ status: 429, limit: '20', remaining: '0' });
          break;
        }
        refillAdmitted += 1;
        if (refillAdmitted > DEFAULT_BURST) break;
      }
      const totalSeconds = (performance.now() - startedAt) / 1000;
      expect(refillAdmitted).toBeGreaterThanOrEqual(DEFAULT_RATE * 1);
      // Never more than the burst plus 5 per second of the whole run: a higher rate would show here.
      expect(burstAdmitted + refillAdmitted).toBeLessThanOrEqual(Math.floor(DEFAULT_BURST + DEFAULT_RATE * totalSeconds));
    });
  });

  describe('PUBLIC_API_RATE_LIMIT_STORE=memory keeps the buckets in the process', () => {
    const BURST = 3;
    const RATE = 0.01;
    const memoryEnv = { PUBLIC_API_RATE_LIMIT_STORE: 'memory', PUBLIC_API_BURST: String(BURST), PUBLIC_API_RATE_PER_SECOND: String(RATE) };
    let memory: TestApi;
    beforeAll(async () => {
      memory = await startTestApi(memoryEnv, { database: api.database });
    });
    afterAll(() => memory.close());

    it('admits exactly the burst counting down, then 429 with exact headers and Retry-After', async () => {
      expect(memory.config.publicApiRateLimitStore).toBe('memory');
      const key = await org.createKey({ name: 'memory bucket' });
      const client = publicApi(memory, key.token);
      const admissions = [];
      for (let i = 0; i < BURST - 1; i++) admissions.push(await admissionOf(await client.get('/me')));
      // Measured from before the take that empties the bucket, so the elapsed time errs long, the safe way.
      const emptiedAt = performance.now();
      admissions.push(await admissionOf(await client.get('/me')));
      const denied = await client.get('/me');
      const elapsedSeconds = (performance.now() - emptiedAt) / 1000;
      expect(admissions).toEqual([
        { status: 200, limit: '3', remaining: '2', retryAfter: null },
        { status: 200, limit: '3', remaining: '1', retryAfter: null },
        { status: 200, limit: '3', remaining: '0', retryAfter: null },
      ]);
      expect(bucketHeaders(denied)).toEqual({ limit: '3', remaining: '0' });
      const { min, max } = retryAfterBounds(RATE, elapsedSeconds);
      expect(max).toBe(100);
      expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(min);
      expect(Number(denied.headers.get('retry-after'))).toBeLessThanOrEqual(max);
      if (elapsedSeconds < 0.5) expect(denied.headers.get('retry-after')).toBe('100');
      await expectError(denied, 429, 'rate_limited');

      // The bucket lives in this process only: nothing was written to the shared table.
      expect(await queryDatabase(api, 'SELECT bucket_key FROM rate_limit_buckets WHERE bucket_key = $1', [key.id])).toEqual([]);
    });

    it('a 401 takes no token from the in-memory bucket', async () => {
      const member = await org.addMember(['member'], 'locked-out');
      const key = await org.createKey({ name: 'memory, owner locked out' }, member.session);
      const client = publicApi(memory, key.token);
      expect(await admissionOf(await client.get('/me'))).toEqual({ status: 200, limit: '3', remaining: '2', retryAfter: null });

      const adminSession = await sessionToken(PLATFORM_ADMIN);
      await rpcOk(api, 'users.disable', { userId: member.user.sub }, { token: adminSession });
      try {
        // More rejected requests than tokens left: had they taken any, the bucket would be dry.
        for (let i = 0; i < BURST * 2; i++) {
          const rejected = await client.get('/me');
          expect(bucketHeaders(rejected)).toEqual({ limit: null, remaining: null });
          await expectError(rejected, 401, 'unauthorized');
        }
      } finally {
        await rpcOk(api, 'users.enable', { userId: member.user.sub }, { token: adminSession });
      }
      expect(await admissionOf(await client.get('/me'))).toEqual({ status: 200, limit: '3', remaining: '1', retryAfter: null });
    });

    it('is not shared: a second process with the memory store has a full bucket for the same key, unlike the PostgreSQL store', async () => {
      const key = await org.createKey({ name: 'two memories' });
      const other = await startTestApi(memoryEnv, { database: api.database });
      try {
        for (const [index, app] of [memory, other].entries()) {
          const client = publicApi(app, key.token);
          const remaining = [];
          for (let i = 0; i < BURST + 1; i++) remaining.push(await admissionOf(await client.get('/me')));
          expect({ process: index, statuses: remaining.map(({ status, remaining: left }) => [status, left]) }).toEqual({
            process: index,
            statuses: [
              [200, '2'],
              [200, '1'],
              [200, '0'],
              [429, '0'],
            ],
          });
        }
      } finally {
        await other.close();
      }
      // The default store on the same database keeps a row per key, shared by every process.
      const shared = await org.createKey({ name: 'shared bucket' });
      expect((await publicApi(api, shared.token).get('/me')).headers.get('x-ratelimit-remaining')).toBe('9');
      const rows = await queryDatabase<{ tokens: number }>(api, 'SELECT tokens FROM rate_limit_buckets WHERE bucket_key = $1', [shared.id]);
      expect(rows).toHaveLength(1);
      expect(Math.floor(rows[0].tokens)).toBe(9);
    });
  });
});
