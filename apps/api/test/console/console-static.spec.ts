import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { errorOf, startTestApi, type TestApi } from '../support/test-api';

const INDEX_HTML = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

/** A console build as vite writes it: index.html and hashed assets. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX_HTML);
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'index-abc123.css'), 'body{margin:0}');
  return dir;
}

/** Raw GET with exact headers (fetch always asks for gzip and decodes it). */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers, method }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the console served at /', () => {
  let api: TestApi;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    api = await startTestApi({ FEATURE_FLAGS: 'public-api.enabled=true' }, { consoleDir: dir });
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / with a content security policy, revalidated on every load', async () => {
    const response = await api.request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe(INDEX_HTML);
  });

  it("answers the single-page app's own routes with index.html", async () => {
    for (const path of ['/api-keys', '/service-accounts', '/models/contacts/records', '/apikeys']) {
      const response = await api.request(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toBe(INDEX_HTML);
    }
  });

  it('serves hashed assets with their content type, cached for a year', async () => {
    const script = await api.request('/assets/index-abc123.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await script.text()).toBe(SCRIPT);
    const style = await api.request('/assets/index-abc123.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('sends gzip to clients that accept it and plain bytes to others', async () => {
    const gzipped = await rawGet(`${api.url}/assets/index-abc123.js`, { 'Accept-Encoding': 'gzip, br' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toContain('Accept-Encoding');
    expect(gzipped.body.length).toBeLessThan(SCRIPT.length);
    expect(gunzipSync(gzipped.body).toString()).toBe(SCRIPT);

    const plain = await rawGet(`${api.url}/assets/index-abc123.js`, { 'Accept-Encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
  });

  it('answers a conditional request for an unchanged file with 304', async () => {
    const first = await api.request('/');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await rawGet(`${api.url}/`, { 'If-None-Match': etag as string });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const changed = await rawGet(`${api.url}/`, { 'If-None-Match': 'W/"something-else"' });
    expect(changed.status).toBe(200);
  });

  it('answers HEAD with the headers only', async () => {
    const response = await rawGet(`${api.url}/api-keys`, {}, 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body.length).toBe(0);
  });

  it('gives a missing file a 404 rather than the app, so a script never receives HTML', async () => {
    for (const path of ['/assets/gone-123.js', '/favicon.png', '/robots.txt']) {
      const response = await api.request(path);
      expect(response.status).toBe(404);
      expect(await errorOf(response)).toMatchObject({ code: 'not_found' });
    }
  });

  it("never shadows the api's own doors", async () => {
    const health = await api.request('/health');
    expect(health.headers.get('content-type')).toContain('application/json');

    const rpcGet = await api.request('/rpc/me.get');
    expect(rpcGet.status).toBe(405);
    const unknownRpc = await api.request('/rpc/unknown.thing');
    expect(unknownRpc.headers.get('content-type')).toContain('application/json');

    const me = await api.request('/api/v1/me');
    expect(me.status).toBe(401);
    for (const path of ['/api/v1/nothing-here', '/api/v2/me', '/hooks/automation/nothing', '/cron/nothing', '/dev/nothing', '/api', '/rpc']) {
      const response = await api.request(path);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.status).toBeGreaterThanOrEqual(400);
    }
  });

  it('serves nothing outside the build and no hidden files', async () => {
    for (const path of ['/..%2fpackage.json', '/assets/..%2f..%2findex.html', '/%2e%2e/%2e%2e/etc/passwd', '/.env', '/assets/%00.js']) {
      const response = await rawGet(`${api.url}${path}`);
      if (response.status === 200) expect(response.body.toString()).toBe(INDEX_HTML);
      else expect(response.status).toBe(404);
    }
  });

  it('leaves other methods to the doors: a POST to a page path is not the app', async () => {
    const response = await api.request('/api-keys', { method: 'POST', json: {} });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toMatchObject({ code: 'not_found' });
  });
});

describe('the console before it is built', () => {
  let api: TestApi;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-empty-'));
    api = await startTestApi({}, { consoleDir: dir });
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says how to build it', async () => {
    const response = await api.request('/');
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toEqual({ code: 'service_unavailable', message: expect.stringContaining('npm run build:console') });
  });
});
