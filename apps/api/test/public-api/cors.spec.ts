import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, setPublicApiEnabled, type OrganizationWithKey } from '../support/public-api-fixtures';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

describe('/api/v1 from a browser on another origin (CORS)', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_CORS_ORIGINS: `${APP},http://localhost:5173` });
    org = await createOrganizationWithKey(api);
  });
  afterAll(() => api.close());

  const preflight = (origin: string, path: string, method = 'PATCH') =>
    api.request(`/api/v1${path}`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization, content-type, if-match' },
    });

  it('answers a listed origin\'s preflight with what it may send', async () => {
    const response = await preflight(APP, '/records/0190bbbb-0000-7000-8000-000000000001');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PATCH, DELETE');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, content-type, idempotency-key, if-match, if-none-match, x-request-id');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toMatch(/Origin/);
  });

  it("lets a listed origin read answers and the rate and request-id headers, errors included", async () => {
    const ok = await api.request('/api/v1/me', { token: org.key.token, headers: { Origin: APP } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
    expect(ok.headers.get('access-control-expose-headers')?.split(', ')).toEqual(
      expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Location', 'ETag']),
    );
    const unauthorized = await api.request('/api/v1/me', { token: 'mrk_nope', headers: { Origin: APP } });
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe(APP);
    await expectError(unauthorized, 401, 'unauthorized');
  });

  it('refuses the preflight of an origin not listed, and gives its plain requests no CORS headers', async () => {
    await expectError(await preflight(OTHER, '/me', 'GET'), 403, 'forbidden');
    const plain = await api.request('/api/v1/me', { token: org.key.token, headers: { Origin: OTHER } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets any origin read the OpenAPI document, which needs no key', async () => {
    const response = await api.request('/api/v1/openapi.json', { headers: { Origin: OTHER } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const open = await preflight(OTHER, '/openapi.json', 'GET');
    expect(open.status).toBe(204);
    expect(open.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('adds nothing for a request without an Origin, as every script sends', async () => {
    const response = await api.request('/api/v1/me', { token: org.key.token });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('/api/v1 with no PUBLIC_API_CORS_ORIGINS (the default)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
    await setPublicApiEnabled(api, true);
  });
  afterAll(() => api.close());

  it('refuses every origin but still serves the OpenAPI document to all', async () => {
    await expectError(
      await api.request('/api/v1/me', { method: 'OPTIONS', headers: { Origin: APP, 'Access-Control-Request-Method': 'GET' } }),
      403,
      'forbidden',
    );
    expect((await api.request('/api/v1/openapi.json', { headers: { Origin: APP } })).headers.get('access-control-allow-origin')).toBe('*');
  });
});
