import { Type } from '@sinclair/typebox';
import { defineProcedure } from '@mrp/platform';
import { errorOf, jsonOf, newHuman, sessionToken, startTestApi, type TestApi } from './support/test-api';

const explode = defineProcedure({
  name: 'test.explode',
  summary: 'fails the way a bug would',
  scope: 'user',
  permission: null,
  input: Type.Object({}),
  async handler() {
    throw new Error('secret internals at /srv/app/handler.ts:42');
  },
});

describe('HTTP basics', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({}, { extraProcedures: [explode] });
  });
  afterAll(() => api.close());

  describe('GET /health', () => {
    it('is 200 with the database reachable', async () => {
      const response = await api.request('/health');
      expect(response.status).toBe(200);
      expect(await jsonOf(response)).toEqual({ status: 'ok', database: 'ok' });
    });
  });

  describe('request ids', () => {
    it('echoes a sane X-Request-Id from the caller', async () => {
      const response = await api.request('/health', { headers: { 'X-Request-Id': 'trace-123' } });
      expect(response.headers.get('x-request-id')).toBe('trace-123');
    });

    it('generates one when the caller sends none or garbage', async () => {
      const none = await api.request('/health');
      const garbage = await api.request('/health', { headers: { 'X-Request-Id': 'x'.repeat(300) } });
      expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(garbage.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('errors use the contract shape', () => {
    let session: string;
    beforeAll(async () => {
      session = await sessionToken(newHuman('body'));
    });

    it('unknown route -> 404 not_found', async () => {
      const response = await api.request('/nope');
      expect(response.status).toBe(404);
      expect(await jsonOf(response)).toEqual({ error: { code: 'not_found', message: 'No route for GET /nope', requestId: response.headers.get('x-request-id') } });
    });

    it('wrong method -> 405 method_not_allowed with Allow', async () => {
      const response = await api.request('/health', { method: 'DELETE' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toContain('GET');
      expect(await jsonOf(response)).toEqual({ error: { code: 'method_not_allowed', message: 'DELETE is not allowed on /health', requestId: response.headers.get('x-request-id') } });
    });

    it('while the public API is off, unknown paths and wrong methods under /api/v1 reveal nothing', async () => {
      for (const [method, path] of [['PUT', '/api/v1/records/x'], ['GET', '/api/v1/nope'], ['GET', '/api/v1']]) {
        const response = await api.request(path, { method });
        expect(response.status).toBe(404);
        expect((await errorOf(response)).code).toBe('public_api_disabled');
      }
    });

    it('missing session -> 401 with WWW-Authenticate', async () => {
      const response = await api.request('/rpc/me.get', { method: 'POST' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect((await errorOf(response)).code).toBe('unauthorized');
    });

    it('malformed JSON -> 400 bad_request', async () => {
      const response = await api.request('/rpc/me.get', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}` },
        body: '{"broken": ',
      });
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe('bad_request');
      expect(error.message).toMatch(/^Malformed JSON body/);
    });

    it('body over 1 MiB -> 413 payload_too_large', async () => {
      const response = await api.request('/rpc/me.get', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}` },
        body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }),
      });
      expect(response.status).toBe(413);
      expect((await errorOf(response)).code).toBe('payload_too_large');
    });

    it('non-JSON body -> 415 unsupported_media_type', async () => {
      const response = await api.request('/rpc/me.get', {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain', Authorization: `Bearer ${session}` },
        body: 'hello',
      });
      expect(response.status).toBe(415);
      expect((await errorOf(response)).code).toBe('unsupported_media_type');
    });

    it('unexpected error -> 500 internal_error without a stack', async () => {
      const token = await sessionToken(newHuman());
      const response = await api.request('/rpc/test.explode', { method: 'POST', json: {}, token });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        error: { code: 'internal_error', message: 'Something went wrong on our side; the request id identifies it', requestId: expect.any(String) },
      });
      expect(text).not.toContain('secret internals');
      expect(response.headers.get('x-request-id')).toBeTruthy();
    });

    it('unknown procedure -> 404 not_found', async () => {
      const token = await sessionToken(newHuman());
      const response = await api.request('/rpc/nope.nothing', { method: 'POST', json: {}, token });
      expect(response.status).toBe(404);
      expect((await errorOf(response))).toEqual({ code: 'not_found', message: 'Procedure nope.nothing not found' });
    });
  });

  describe('cron routes', () => {
    it('refuse a wrong secret with 401 and unknown tasks with 404', async () => {
      expect((await api.request('/cron/process-account-deletions', { token: 'wrong-secret-value-123' })).status).toBe(401);
      expect((await api.request('/cron/no-such-task', { token: api.config.cronSecret })).status).toBe(404);
    });

    it('run a task with the right secret, by GET or POST, and answer { task, processed }', async () => {
      for (const method of ['GET', 'POST']) {
        const response = await api.request('/cron/process-account-deletions', { method, token: api.config.cronSecret });
        expect(response.status).toBe(200);
        expect(await jsonOf(response)).toEqual({ task: 'process-account-deletions', processed: 0 });
      }
    });

    it('are off (503) when no CRON_SECRET is configured', async () => {
      const withoutSecret = await startTestApi({ CRON_SECRET: '' });
      try {
        const response = await withoutSecret.request('/cron/process-account-deletions', { token: 'anything-at-all-1234' });
        expect(response.status).toBe(503);
        expect((await errorOf(response)).code).toBe('service_unavailable');
      } finally {
        await withoutSecret.close();
      }
    });
  });
});
