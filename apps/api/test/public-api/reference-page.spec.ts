import { readFileSync } from 'node:fs';
import { startTestApi, type TestApi } from '../support/test-api';
import { expectError, setPublicApiEnabled } from '../support/public-api-fixtures';

/** Every URL the page names in src= or href=. */
const referencedUrls = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) => match[1]);

/** The API reference page at /api/v1/docs: served from this origin only, its scripts from the installed packages. */
describe('GET /api/v1/docs', () => {
  let api: TestApi;
  let page: Response;
  let html: string;
  beforeAll(async () => {
    api = await startTestApi();
    await setPublicApiEnabled(api, true);
    page = await api.request('/api/v1/docs');
    html = await page.text();
  });
  afterAll(() => api.close());

  it('is an HTML page that is revalidated on every load', () => {
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html).toContain('<main id="reference" data-openapi-url="/api/v1/openapi.json">');
  });

  it('names nothing outside this origin, and its policy allows only this origin', () => {
    expect(html).not.toMatch(/https?:\/\//);
    const urls = referencedUrls(html);
    expect(urls.filter((url) => url !== 'data:,').length).toBe(4);
    for (const url of urls.filter((candidate) => candidate !== 'data:,')) expect(url).toMatch(/^\/api\/v1\/docs\/[\w.-]+\.(js|css)$/);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(policy).not.toMatch(/unsafe-eval|unsafe-inline|https?:|\*|blob:/);
  });

  it("lets in only the <style> elements carrying this answer's nonce, a new one each time", async () => {
    const nonceOf = (policy: string | null) => /(?:^|; )style-src 'self' 'nonce-([A-Za-z0-9+/]{24})'(?:;|$)/.exec(policy ?? '')?.[1];
    const nonce = nonceOf(page.headers.get('content-security-policy'));
    expect(nonce).toBeDefined();
    expect(html).toContain(`<meta property="csp-nonce" content="${nonce}" />`);
    const again = await api.request('/api/v1/docs');
    const next = nonceOf(again.headers.get('content-security-policy'));
    expect(next).toBeDefined();
    expect(next).not.toBe(nonce);
    expect(await again.text()).toContain(`content="${next}"`);
  });

  it('has no inline script, and no form that could put a key into a URL', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBe(3);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="/);
      expect(body.trim()).toBe('');
    }
    expect(html).not.toMatch(/<form\b/i);
    expect(html).toMatch(/<input id="api-key" type="password"/);
  });

  it('serves Redoc from the installed package, cached for a year under a content-hashed name, naming no other origin for its logo', async () => {
    const redocUrl = referencedUrls(html).find((url) => url.includes('redoc.standalone'));
    expect(redocUrl).toMatch(/^\/api\/v1\/docs\/redoc\.standalone\.[\w-]{16}\.js$/);
    const response = await api.request(redocUrl!, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('vary')).toMatch(/Accept-Encoding/);
    const installed = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    const served = await response.text();
    expect(installed).toContain('https://cdn.redoc.ly/redoc/logo-mini.svg');
    expect(served).not.toContain('cdn.redoc.ly');
    expect(served.replace(/data:image\/svg\+xml,[^"]*/g, 'LOGO')).toBe(installed.replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', 'LOGO'));
  });

  it("serves the page's own script and styles, plain to a client that takes no compression", async () => {
    const expected: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
    for (const url of referencedUrls(html).filter((candidate) => candidate.includes('reference-page'))) {
      const response = await api.request(url, { headers: { 'Accept-Encoding': 'identity' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(expected[url.split('.').pop()!]);
      expect(response.headers.get('content-encoding')).toBeNull();
      expect((await response.text()).length).toBeGreaterThan(100);
    }
  });

  it('answers 404 for a file it does not have, and the page is gone with the public API', async () => {
    await expectError(await api.request('/api/v1/docs/redoc.standalone.js'), 404, 'not_found');
    await expectError(await api.request('/api/v1/docs/..%2F..%2Fpackage.json'), 404, 'not_found');
    await setPublicApiEnabled(api, false);
    await expectError(await api.request('/api/v1/docs'), 404, 'public_api_disabled');
    await setPublicApiEnabled(api, true);
  });
});
