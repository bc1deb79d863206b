import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, type OrganizationWithKey } from '../support/public-api-fixtures';
import { createEveryTypeModel } from '../support/every-field-type';

/** Debian's Chromium; playwright-core never downloads a browser. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';



/** The reference page in a real browser: Redoc renders the operations under the page's policy, and a pasted key types them. */
describe('The API reference page in Chromium', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const problems: string[] = [];
  const requests: Array<{ url: string; authorization: string | undefined; failure?: string }> = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM_PATH)) throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it with apt-get install -y chromium (or set CHROMIUM_PATH)`);
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api, { name: 'Browser Inc' });
    await createEveryTypeModel(org);
    profile = mkdtempSync(join(tmpdir(), 'api-reference-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => {
      // Redoc's footer always tries Redocly's logo from its CDN: the policy blocks it, as it should.
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => requests.push({ url: request.url(), authorization: request.headers()['authorization'] }));
    page.on('requestfailed', (request) => {
      const sent = requests.find((candidate) => candidate.url === request.url() && candidate.failure === undefined);
      if (sent) sent.failure = request.failure()?.errorText ?? 'failed';
    });
    await page.goto(`${api.url}/api/v1/docs`);
  });
  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await api?.close();
  });

  it('renders the operations of the generic document, with no error, and nothing reaches another origin', async () => {
    await page.getByText('The generic reference.', { exact: false }).waitFor();
    await page.getByRole('heading', { name: "List a model's records, one page at a time" }).waitFor();
    await page.getByRole('heading', { name: 'Create a record' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Create a record, or a batch of records (Invoice)' }).count()).toBe(0);
    expect(problems).toEqual([]);
    expect(requests.filter((request) => !request.url.startsWith(api.url) && !request.url.startsWith('data:'))).toEqual([]);
  });

  it("applies Redoc's run-time styles under a policy without 'unsafe-inline'", async () => {
    const policy = (await api.request('/api/v1/docs')).headers.get('content-security-policy') ?? '';
    expect(policy).not.toContain('unsafe-inline');
    // Redoc's theme paints its menu; unstyled, it would be transparent.
    // Run in the page (a string: this project's TypeScript knows no DOM).
    await page.locator('.menu-content').waitFor();
    const menuBackground = await page.evaluate(`getComputedStyle(document.querySelector('.menu-content')).backgroundColor`);
    expect(menuBackground).toBe('rgb(250, 250, 250)');
    expect(problems).toEqual([]);
  });

  it("renders the organization's typed operations once a key is pasted, sent only in the Authorization header", async () => {
    await page.locator('#api-key').fill(org.key.token);
    await page.locator('#use-key').click();
    await page.getByText('Typed for your organization: 2 models.').waitFor();
    await page.getByRole('heading', { name: 'Create a record, or a batch of records (Invoice)' }).waitFor();
    await page.getByRole('heading', { name: "List a model's records, one page at a time (Invoice)" }).waitFor();
    const documentRequests = requests.filter((request) => request.url.endsWith('/api/v1/openapi.json'));
    expect(documentRequests.map((request) => request.authorization)).toEqual([undefined, `Bearer ${org.key.token}`]);
    expect(requests.filter((request) => request.url.includes(org.key.token))).toEqual([]);
    expect(page.url()).toBe(`${api.url}/api/v1/docs`);
    expect(problems).toEqual([]);
  });

  it("shows a model's name and description as the text they are: no markup, no styles, no links of theirs", async () => {
    const hostile = await createOrganizationWithKey(api, { name: 'Hostile Inc', modelKey: 'notes' });
    const description = '<style>body{display:none}</style><img src=x> <a href="https://evil.example/">click</a> **bold**';
    await hostile.rpc('dataModels.create', { key: 'hostile', name: '<b>Loud</b>', description });
    await page.locator('#api-key').fill(hostile.key.token);
    await page.locator('#use-key').click();
    await page.getByText('Typed for your organization: 2 models.').waitFor();
    await page.getByRole('heading', { name: 'Create a record, or a batch of records (<b>Loud</b>)' }).waitFor();
    await page.getByText(`<b>Loud</b>: ${description}`).first().waitFor();
    const injected = await page.evaluate(`({
      styles: [...document.querySelectorAll('style')].filter((style) => style.textContent.includes('body{display:none}')).length,
      images: document.querySelectorAll('img[src="x"]').length,
      links: document.querySelectorAll('a[href^="https://evil.example"]').length,
      bold: [...document.querySelectorAll('#reference strong, #reference b')].filter((element) => /bold|Loud/.test(element.textContent)).length,
      bodyDisplay: getComputedStyle(document.body).display,
    })`);
    expect(injected).toEqual({ styles: 0, images: 0, links: 0, bold: 0, bodyDisplay: 'block' });
    expect(problems).toEqual([]);
  });

  it('says so when the key is not valid', async () => {
    await page.locator('#api-key').fill(`mrk_${'A'.repeat(43)}`);
    await page.locator('#use-key').click();
    await page.getByText('That key is not valid', { exact: false }).waitFor();
    problems.length = 0;
  });
});
