import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from './support/chromium';
import { screenshotBothSchemes } from './support/color-schemes';
import { E2E_ADMIN_EMAIL, startConsoleApi, type ConsoleApi } from './support/console-api';
import { pageRpc, signInWithNewOrganization } from './support/page-session';

interface ApiRecord {
  id: string;
  title: string;
}

/**
 * The trash in Chromium over a real api: a record deleted in the grid is listed in its model's
 * trash with who deleted it and when, a restore brings it back and a purge erases it, each checked
 * over /api/v1.
 */
describe('the trash in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  let apiKey = '';
  const ids: Record<string, string> = {};

  const rpc = <T>(procedure: string, input: unknown) => pageRpc<T>(page, api.url, procedure, input);
  const rest = (path: string) => fetch(`${api.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });
  const trashTable = () => page.getByRole('region', { name: 'Deleted Tickets records' });

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await launchChromium();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('lists a record deleted in the grid in the trash, with who deleted it', async () => {
    await signInWithNewOrganization(page, api.url, 'Trash E2E');
    apiKey = (await rpc<{ token: string }>('apiKeys.create', { name: 'trash e2e', fullAccess: true })).token;
    await rpc('dataModels.create', { key: 'tickets', name: 'Tickets' });
    for (const title of ['Printer on fire', 'Lost badge', 'Broken chair']) ids[title] = (await rpc<ApiRecord>('records.create', { model: 'tickets', data: { title } })).id;
    await rpc('records.delete', { id: ids['Broken chair'] });

    await page.goto(`${api.url}/models/tickets/records`);
    await page.getByRole('heading', { name: 'Tickets records', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete Lost badge' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Lost badge?' });
    await dialog.getByText(/trash/).waitFor();
    await dialog.getByRole('button', { name: 'Delete record' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await rest(`/records/${ids['Lost badge']}`)).status).toBe(404);

    await page.getByRole('link', { name: 'Trash' }).click();
    await page.getByRole('heading', { name: 'Tickets: trash', level: 1 }).waitFor();
    const lost = trashTable().locator('tr', { has: page.getByRole('rowheader', { name: 'Lost badge', exact: true }) });
    await lost.waitFor();
    // The newest deletion first; the deleter by name (the development sign-in names them by email).
    expect(await trashTable().locator('tbody th').allTextContents()).toEqual(['Lost badge', 'Broken chair']);
    expect(await lost.locator('td').nth(1).textContent()).toContain(E2E_ADMIN_EMAIL.split('@')[0]);
    await screenshotBothSchemes(page, 'trash');
  });

  it('restores a record, which /api/v1 then serves again', async () => {
    await page.getByRole('button', { name: 'Restore Lost badge' }).click();
    await page.getByRole('status').getByText('Restored Lost badge.').waitFor();
    expect(await trashTable().locator('tbody th').allTextContents()).toEqual(['Broken chair']);
    const restored = await rest(`/records/${ids['Lost badge']}`);
    expect(restored.status).toBe(200);
    expect(((await restored.json()) as ApiRecord).title).toBe('Lost badge');
  });

  it('purges a record for good, after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete Broken chair forever' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Broken chair forever?' });
    await dialog.getByRole('button', { name: 'Delete forever' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('The trash is empty').waitFor();
    const trash = await rest('/models/tickets/records?deleted=only');
    expect(((await trash.json()) as { items: ApiRecord[] }).items).toEqual([]);
    expect((await rest(`/records/${ids['Broken chair']}`)).status).toBe(404);
  });
});
