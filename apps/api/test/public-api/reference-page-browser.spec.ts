import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, type OrganizationWithKey } from '../support/public-api-fixtures';
import { createEveryTypeModel } from '../support/every-field-type';

/** Debian's Chromium; playwright-core never downloads a browser. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const REDOCLY_LOGO_BLOCKED = /^Loading the image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates the following Content Security Policy directive/;

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
      if (message.type() === 'error' && !REDOCLY_LOGO_BLOCKED.test(message.text())) problems.push(`console: ${message.text()}`);
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
    expect(await page.getByRole('heading', { name: 'Create a record (Invoice)' }).count()).toBe(0);
    expect(problems).toEqual([]);
    // Redoc's footer asks for Redocly's logo on its CDN: the only other origin named, and the policy stops it.
    const elsewhere = requests.filter((request) => !request.url.startsWith(api.url));
    expect(elsewhere.map((request) => request.failure)).toEqual(elsewhere.map(() => 'csp'));
    expect(elsewhere.map((request) => new URL(request.url).host)).toEqual(elsewhere.map(() => 'cdn.redoc.ly'));
  });

  it("renders the organization's typed operations once a key is pasted, sent only in the Authorization header", async () => {
    await page.locator('#api-key').fill(org.key.token);
    await page.locator('#use-key').click();
    await page.getByText('Typed for your organization: 2 models.').waitFor();
    await page.getByRole('heading', { name: 'Create a record (Invoice)' }).waitFor();
    await page.getByRole('heading', { name: "List a model's records, one page at a time (Invoice)" }).waitFor();
    const documentRequests = requests.filter((request) => request.url.endsWith('/api/v1/openapi.json'));
    expect(documentRequests.map((request) => request.authorization)).toEqual([undefined, `Bearer ${org.key.token}`]);
    expect(requests.filter((request) => request.url.includes(org.key.token))).toEqual([]);
    expect(page.url()).toBe(`${api.url}/api/v1/docs`);
    expect(problems).toEqual([]);
  });

  it('says so when the key is not valid', async () => {
    await page.locator('#api-key').fill(`mrk_${'A'.repeat(43)}`);
    await page.locator('#use-key').click();
    await page.getByText('That key is not valid', { exact: false }).waitFor();
    problems.length = 0;
  });
});
