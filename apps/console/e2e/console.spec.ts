import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page, Response } from 'playwright-core';
import { ARTIFACTS_DIR, launchChromium, screenshotBothWidths, WIDTHS, type Browser } from './support/chromium';
import { E2E_ADMIN_EMAIL, startConsoleApi, type ConsoleApi } from './support/console-api';

const FIRST_PAGE_JS_LIMIT = 250 * 1024;

/** The console as a person uses it: a real api process and database, Debian's Chromium. */
describe('the console in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  /** Gzipped size of each script the page has loaded so far, by URL. */
  const scripts = new Map<string, number>();
  const firstPageJs: Record<string, number> = {};

  const javaScriptLoaded = () => [...scripts.values()].reduce((sum, bytes) => sum + bytes, 0);
  /** The label (or name) of the element that has the focus. The script runs in the page, hence a string. */
  const focusedLabel = () =>
    page.evaluate<string | null>(`(() => {
      const element = document.activeElement;
      if (!element) return null;
      const labelled = element.id ? document.querySelector('label[for="' + element.id + '"]') : null;
      return ((labelled && labelled.textContent) || element.getAttribute('aria-label') || element.textContent || '').trim();
    })()`);
  const apiMe = (token: string) => fetch(`${api.url}/api/v1/me`, { headers: { Authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await launchChromium();
    page = browser.page;
    page.on('response', (response: Response) => {
      if (response.request().resourceType() !== 'script' || !response.url().startsWith(api.url)) return;
      void response.body().then((body) => scripts.set(response.url(), gzipSync(body).length), () => undefined);
    });
  }, 120_000);

  afterAll(async () => {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    writeFileSync(join(ARTIFACTS_DIR, 'first-page-js.json'), `${JSON.stringify(firstPageJs, null, 2)}\n`);
    await browser?.close();
    await api?.close();
  });

  it('signs in through the development sign-in, creates the first organization and lands on the Data models page', async () => {
    await page.goto(`${api.url}/`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByRole('button', { name: `Continue as ${E2E_ADMIN_EMAIL}` }).waitFor();
    await page.waitForLoadState('networkidle');
    firstPageJs.signInGzipBytes = javaScriptLoaded();
    expect(firstPageJs.signInGzipBytes).toBeGreaterThan(0);
    expect(firstPageJs.signInGzipBytes).toBeLessThan(FIRST_PAGE_JS_LIMIT);
    await screenshotBothWidths(page, 'sign-in');

    await page.getByRole('button', { name: `Continue as ${E2E_ADMIN_EMAIL}` }).click();
    await page.getByRole('heading', { name: 'Create your organization' }).waitFor();
    await screenshotBothWidths(page, 'create-organization');
    await page.getByRole('textbox', { name: 'Organization name' }).fill('Console E2E');
    await page.getByRole('button', { name: 'Create organization' }).click();

    await page.getByRole('heading', { name: 'Data models', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/models');
    expect(await page.getByLabel('Organization').locator('option:checked').textContent()).toBe('Console E2E');
    await page.waitForLoadState('networkidle');
    firstPageJs.dataModelsGzipBytes = javaScriptLoaded();
    expect(firstPageJs.dataModelsGzipBytes).toBeLessThan(FIRST_PAGE_JS_LIMIT);

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByText('No keys yet.').waitFor();
  });

  it('creates a limited key shown once, which works on /api/v1/me, and revoking it in the page gets it a 401', async () => {
    // Opened from the keyboard: focus moves into the dialog, to its first field.
    await page.getByRole('button', { name: 'Create API key' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Create API key' }).waitFor();
    expect(await focusedLabel()).toMatch(/^Name/);
    await screenshotBothWidths(page, 'api-keys-create');

    // Limited offers only the creator's own permissions; nothing chosen is refused in the page.
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Choose at least one permission for a limited key').waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('E2E limited key');
    await page.getByRole('checkbox', { name: /^data-models\.read/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    await shown.waitFor();
    expect(await shown.textContent()).toContain('you will not see it again');
    const token = await page.getByLabel('API key “E2E limited key”').inputValue();
    expect(token).toMatch(/^mrk_[A-Za-z0-9]{49}$/);
    await shown.getByRole('button', { name: 'Copy key' }).waitFor();
    await screenshotBothWidths(page, 'api-keys-token');
    await page.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await focusedLabel()).toBe('Create API key');

    const me = await apiMe(token);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { apiKey: unknown }).apiKey).toMatchObject({ name: 'E2E limited key', fullAccess: false, permissions: ['data-models.read'] });

    const row = page.getByRole('row', { name: /E2E limited key/ });
    await row.getByText('active').waitFor();
    expect(await row.textContent()).toContain('Limited: 1 permission');
    expect(await row.textContent()).toContain(token.slice(0, 12));
    await screenshotBothWidths(page, 'api-keys');
    // The row's Revoke stays in sight inside the table's box, however wide the dates make the table.
    for (const width of [WIDTHS.wide, WIDTHS.narrow]) {
      await page.setViewportSize({ width, height: 900 });
      const box = await page.getByRole('region', { name: 'Your API keys' }).boundingBox();
      const revoke = await page.getByRole('button', { name: 'Revoke E2E limited key' }).boundingBox();
      expect(box && revoke && revoke.x + revoke.width <= box.x + box.width).toBe(true);
    }
    await page.setViewportSize({ width: WIDTHS.wide, height: 900 });

    await page.getByRole('button', { name: 'Revoke E2E limited key' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke API key?' });
    await confirm.waitFor();
    // A stray Enter must not revoke: Cancel has the focus.
    expect(await focusedLabel()).toBe('Cancel');
    await screenshotBothWidths(page, 'api-keys-revoke');
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row.getByText('revoked').waitFor();
    expect(await page.getByRole('button', { name: 'Revoke E2E limited key' }).count()).toBe(0);

    const refused = await apiMe(token);
    expect(refused.status).toBe(401);
  });

  it('closes a dialog on Escape and gives the focus back to the button that opened it', async () => {
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByRole('dialog', { name: 'Create API key' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await focusedLabel()).toBe('Create API key');
  });

  it('manages a service account: created with a role, given a key, disabled (its key stops), enabled, deleted', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Service accounts' }).click();
    await page.getByRole('heading', { name: 'Service accounts', level: 1 }).waitFor();
    await page.getByText('No service accounts yet.').waitFor();

    await page.getByRole('button', { name: 'Create service account' }).click();
    const create = page.getByRole('dialog', { name: 'Create service account' });
    await create.waitFor();
    await create.getByRole('textbox', { name: 'Name', exact: true }).fill('Nightly import');
    await create.getByRole('textbox', { name: 'Description', exact: true }).fill('Loads the CRM export every night');
    await create.getByRole('checkbox', { name: /^read-only/ }).check();
    await screenshotBothWidths(page, 'service-accounts-create');
    await create.getByRole('button', { name: 'Create service account' }).click();

    await page.getByRole('heading', { name: 'Nightly import', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/service-accounts\/svc_/);
    expect(await page.getByRole('checkbox', { name: /^read-only/ }).isChecked()).toBe(true);

    await page.getByRole('button', { name: 'Create key' }).click();
    const keyDialog = page.getByRole('dialog', { name: 'Create a key for Nightly import' });
    await keyDialog.waitFor();
    await keyDialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Importer key');
    await keyDialog.getByRole('checkbox', { name: /^records\.read/ }).check();
    await keyDialog.getByRole('button', { name: 'Create key' }).click();
    const token = await page.getByLabel('API key “Importer key”').inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row', { name: /Importer key/ }).getByText('active').waitFor();
    const me = await apiMe(token);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { principal: { kind: string; displayName: string } }).principal).toMatchObject({ kind: 'SERVICE', displayName: 'Nightly import' });
    await screenshotBothWidths(page, 'service-account');

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog', { name: 'Disable Nightly import?' }).getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    expect((await apiMe(token)).status).toBe(401);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    expect((await apiMe(token)).status).toBe(200);

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete Nightly import?' }).getByRole('button', { name: 'Delete service account' }).click();
    await page.getByRole('heading', { name: 'Service accounts', level: 1 }).waitFor();
    await page.getByText('No service accounts yet.').waitFor();
    await screenshotBothWidths(page, 'service-accounts');
    expect((await apiMe(token)).status).toBe(401);
  });

  it('signs out, and says in plain words, with the request id, why a token is refused', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByRole('textbox', { name: 'Session token from your identity provider' }).fill('not-a-session-token');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    expect(text).toContain('Your session is no longer valid');
    expect(text).toContain('Session token is invalid');
    expect(text).toMatch(/Request id for support: [0-9a-f-]{36}/);
    await screenshotBothWidths(page, 'sign-in-refused');
  });
});
