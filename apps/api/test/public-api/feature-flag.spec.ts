import { startTestApi, type TestApi } from '../support/test-api';
import {
  createOrganizationWithKey,
  expectError,
  publicApi,
  queryDatabase,
  setPublicApiEnabled,
  sleep,
  type OrganizationWithKey,
} from '../support/public-api-fixtures';

interface RouteCall {
  name: string;
  send(token: string | undefined): Promise<Response>;
}

/** CONTRACT "What the service does" 5 + DESIGN 6: `public-api.enabled` gates every /api/v1 route. */
describe('/api/v1 behind the public-api.enabled flag', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let recordId: string;
  let routes: RouteCall[];
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    // Keys can be made while the flag is off (the default); they stay inert until it is on.
    org = await createOrganizationWithKey(api, { enablePublicApi: false });
    recordId = (await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'Before the flag' } })).id;
    const v1 = (token: string | undefined) => publicApi(api, token);
    routes = [
      { name: 'GET /me', send: (token) => v1(token).get('/me') },
      { name: 'GET /models', send: (token) => v1(token).get('/models') },
      { name: 'GET /models/{key}', send: (token) => v1(token).get(`/models/${org.modelKey}`) },
      { name: 'GET /models/{key}/fields', send: (token) => v1(token).get(`/models/${org.modelKey}/fields`) },
      { name: 'GET /models/{key}/records', send: (token) => v1(token).get(`/models/${org.modelKey}/records`) },
      { name: 'POST /models/{key}/records', send: (token) => v1(token).post(`/models/${org.modelKey}/records`, { data: { title: 'Sneaked in' } }) },
      { name: 'GET /records/{id}', send: (token) => v1(token).get(`/records/${recordId}`) },
      { name: 'PATCH /records/{id}', send: (token) => v1(token).patch(`/records/${recordId}`, { data: { title: 'Changed' } }) },
      { name: 'DELETE /records/{id}', send: (token) => v1(token).delete(`/records/${recordId}?hard=true`) },
      { name: 'POST /records/{id}/restore', send: (token) => v1(token).post(`/records/${recordId}/restore`, undefined) },
      { name: 'GET /openapi.json', send: (token) => v1(token).get('/openapi.json') },
    ];
  });
  afterAll(() => api.close());

  async function expectDisabled(response: Response): Promise<void> {
    await expectError(response, 404, 'public_api_disabled');
    // Refused before key authentication and the rate limit.
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    expect(response.headers.get('www-authenticate')).toBeNull();
  }

  it('is off by default: every route, openapi.json included, is 404 public_api_disabled, with or without a key', async () => {
    expect(routes).toHaveLength(11);
    for (const route of routes) {
      await expectDisabled(await route.send(org.key.token));
      await expectDisabled(await route.send(undefined));
      await expectDisabled(await route.send('mrk_not-even-a-key'));
    }
  });

  it('leaves a valid key inert while off: nothing was read or written through it', async () => {
    const list = await org.rpc<{ items: Array<{ id: string; title: string }> }>('records.list', { model: org.modelKey });
    expect(list.items.map(({ id, title }) => ({ id, title }))).toEqual([{ id: recordId, title: 'Before the flag' }]);
    const keys = await org.rpc<{ items: Array<{ id: string; lastUsedAt: string | null }> }>('apiKeys.list', {});
    expect(keys.items.find((key) => key.id === org.key.id)?.lastUsedAt).toBeNull();
  });

  it('a flip is seen on the next request, both ways', async () => {
    await setPublicApiEnabled(api, true);
    for (const route of routes.filter((candidate) => candidate.name.startsWith('GET'))) {
      expect({ route: route.name, status: (await route.send(org.key.token)).status }).toEqual({ route: route.name, status: 200 });
    }

    await setPublicApiEnabled(api, false);
    for (const route of routes) await expectDisabled(await route.send(org.key.token));

    await setPublicApiEnabled(api, true);
    expect((await publicApi(api, org.key.token).get('/me')).status).toBe(200);
  });

  it('another api process on the same database sees a flip within a second', async () => {
    const other = await startTestApi({ PUBLIC_API_BURST: '1000' }, { database: api.database });
    try {
      await setPublicApiEnabled(api, true);
      expect((await publicApi(other, org.key.token).get('/me')).status).toBe(200);

      await setPublicApiEnabled(api, false);
      const flippedAt = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - flippedAt < 1500) {
        const response = await publicApi(other, org.key.token).get('/me');
        status = response.status;
        await response.arrayBuffer();
        if (status === 200) await sleep(50);
      }
      expect(status).toBe(404);
      expect(Date.now() - flippedAt).toBeLessThanOrEqual(1000);
    } finally {
      await other.close();
    }
  });

  describe('while off, paths that match no route are refused the same way, with a valid key, and its bucket is untouched', () => {
    type BucketRow = { tokens: number; updated_at: Date; admitted: boolean };
    const bucketOf = (keyId: string) =>
      queryDatabase<BucketRow>(api, 'SELECT tokens, updated_at, admitted FROM rate_limit_buckets WHERE bucket_key = $1', [keyId]);

    it('unknown paths, wrong methods on known paths and bare /api/v1 are all 404 public_api_disabled', async () => {
      // Used once while on: the key has a bucket row with one token taken.
      await setPublicApiEnabled(api, true);
      const key = await org.createKey({ name: 'bucket watched' });
      const used = await publicApi(api, key.token).get('/me');
      expect(used.status).toBe(200);
      expect(used.headers.get('x-ratelimit-remaining')).toBe('999');
      const before = await bucketOf(key.id);
      expect(before).toHaveLength(1);
      expect(before[0]).toMatchObject({ tokens: 999, admitted: true });

      await setPublicApiEnabled(api, false);
      const requests: Array<[string, string]> = [
        ['GET', '/api/v1'],
        ['GET', '/api/v1/'],
        ['POST', '/api/v1'],
        ['GET', '/api/v1?limit=5'],
        ['GET', '/api/v1/nothing-here'],
        ['GET', '/api/v1/models/tasks/records/extra'],
        ['POST', '/api/v1/me'],
        ['PUT', `/api/v1/records/${recordId}`],
        ['DELETE', `/api/v1/models/${org.modelKey}`],
        ['PATCH', `/api/v1/models/${org.modelKey}/records`],
        ['POST', '/api/v1/openapi.json'],
        ['GET', '/api/v1/me'],
      ];
      for (const [method, path] of requests) {
        const response = await api.request(path, { method, token: key.token });
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
        await expectDisabled(response);
      }

      // Refused before the rate limit: not even a refill was written.
      expect(await bucketOf(key.id)).toEqual(before);
      await setPublicApiEnabled(api, true);
      expect((await publicApi(api, key.token).get('/me')).status).toBe(200);
      const [after] = await bucketOf(key.id);
      expect(after.updated_at.getTime()).toBeGreaterThan(before[0].updated_at.getTime());
      await setPublicApiEnabled(api, false);
    });

    it('a differently cased /API/V1 path is refused the same way and touches no bucket either', async () => {
      await setPublicApiEnabled(api, true);
      const key = await org.createKey({ name: 'case watched' });
      expect((await publicApi(api, key.token).get('/me')).status).toBe(200);
      const before = await bucketOf(key.id);
      await setPublicApiEnabled(api, false);

      for (const path of ['/API/V1/me', '/Api/v1/models', `/api/V1/models/${org.modelKey}/records`, '/API/v1/openapi.json']) {
        const response = await api.request(path, { token: key.token });
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
        await expectDisabled(response);
      }
      expect(await bucketOf(key.id)).toEqual(before);
    });
  });
});
