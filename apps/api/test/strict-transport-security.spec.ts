import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApi, type TestApi } from './support/test-api';

const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  CURSOR_SECRET: 'cursor-secret-for-the-production-test-0123456789',
  FEATURE_FLAGS: 'public-api.enabled=true',
};
const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/** Every kind of answer: each door, its errors, the reference page, the console and its fallback. */
const REQUESTS: Array<[string, string, RequestInit]> = [
  ['health', '/health', {}],
  ['the API reference page', '/api/v1/docs', {}],
  ['the OpenAPI document', '/api/v1/openapi.json', {}],
  ['a 401 of the public API', '/api/v1/me', {}],
  ['a CORS preflight', '/api/v1/me', { method: 'OPTIONS', headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET' } }],
  ['a 401 of /rpc', '/rpc/me.get', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }],
  ['a 405', '/health', { method: 'DELETE' }],
  ['a 404 of a hook', '/hooks/automation/not-an-id', { method: 'POST' }],
  ['the console', '/', {}],
  ['the console fallback', '/models/anything', {}],
];

/** A request Node's parser refuses, answered outside Koa. */
function malformedRequestHeaders(api: TestApi): Promise<string> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n'));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8').split('\r\n\r\n')[0]));
  });
}

describe('Strict-Transport-Security', () => {
  let consoleDir: string;
  beforeAll(() => {
    consoleDir = mkdtempSync(join(tmpdir(), 'console-dist-'));
    writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><html><body><div id="root"></div></body></html>');
  });
  afterAll(() => rmSync(consoleDir, { recursive: true, force: true }));

  describe.each([
    ['in production', PRODUCTION_ENV],
    ['with NODE_ENV unset (production)', { ...PRODUCTION_ENV, NODE_ENV: '' }],
  ])('%s', (_, env) => {
    let api: TestApi;
    beforeAll(async () => {
      api = await startTestApi(env, { consoleDir });
    });
    afterAll(() => api.close());

    it.each(REQUESTS)('is on %s: a year, subdomains included', async (_name, path, init) => {
      const response = await api.request(path, init);
      expect(response.headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY);
    });

    it('is on the 400 to a request Node refuses before the app sees it', async () => {
      const head = await malformedRequestHeaders(api);
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toContain(`\r\nStrict-Transport-Security: ${STRICT_TRANSPORT_SECURITY}`);
    });
  });

  describe('in development', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await startTestApi({ NODE_ENV: 'development', FEATURE_FLAGS: 'public-api.enabled=true' }, { consoleDir });
    });
    afterAll(() => api.close());

    it('is on no answer: a developer\'s http://127.0.0.1 is never pinned to https', async () => {
      for (const [, path, init] of REQUESTS) {
        const response = await api.request(path, init);
        expect(response.headers.get('strict-transport-security')).toBeNull();
      }
      expect(await malformedRequestHeaders(api)).not.toMatch(/strict-transport-security/i);
    });
  });
});
