import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from './support/chromium';
import { screenshotBothSchemes } from './support/color-schemes';
import { startConsoleApi, type ConsoleApi } from './support/console-api';
import { eventually } from './support/eventually';
import { focusedLabel, pageRpc, signInWithNewOrganization } from './support/page-session';

interface ApiRecord {
  id: string;
  title: string;
  data: Record<string, unknown>;
}

/**
 * What a new user meets first, in Chromium over a real api: the quick search finds an option by
 * the label the grid shows, the filter popover closes as menus do, a CSV's relation column takes
 * the related record's title, the automation editor lists its trigger's variables, and the bell
 * shows a new notification without a reload.
 */
describe('a first session in the console, in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  let folder = '';
  const companies: Record<string, string> = {};

  const rpc = <T>(procedure: string, input: unknown) => pageRpc<T>(page, api.url, procedure, input);
  const grid = () => page.getByRole('grid');
  const rowTitles = () => grid().locator('tbody th[scope="row"]').allTextContents();
  const openDeals = async () => {
    await page.goto(`${api.url}/models/deals/records`);
    await page.getByRole('heading', { name: 'Deals records', level: 1 }).waitFor();
    await grid().waitFor();
  };

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await launchChromium();
    page = browser.page;
    folder = mkdtempSync(join(tmpdir(), 'console-first-use-e2e-'));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('sets up companies and deals at a stage', async () => {
    await signInWithNewOrganization(page, api.url, 'First use E2E');
    await rpc('dataModels.create', { key: 'companies', name: 'Companies' });
    for (const name of ['Acme', 'Globex', 'Twin', 'twin']) companies[name] = (await rpc<ApiRecord>('records.create', { model: 'companies', data: { title: name } })).id;
    await rpc('dataModels.create', { key: 'deals', name: 'Deals' });
    await rpc('dataModels.fields.create', {
      model: 'deals',
      key: 'stage',
      name: 'Stage',
      type: 'SELECT',
      config: { options: [{ value: 'lead', label: 'Lead', color: 'blue' }, { value: 'closed_won', label: 'Won', color: 'green' }, { value: 'lost', label: 'Lost' }] },
    });
    await rpc('dataModels.fields.create', { model: 'deals', key: 'company', name: 'Company', type: 'RELATION', config: { targetModel: 'companies' } });
    const deals = [
      ['Anvils', 'closed_won'],
      ['Rockets', 'lead'],
      ['Wonder glue', 'lead'],
      ['Magnets', 'lost'],
      ['Springs', 'closed_won'],
    ] as const;
    for (const [title, stage] of deals) await rpc('records.create', { model: 'deals', data: { title, stage, company: companies['Acme'] } });
  });

  it('finds the deals whose stage shows Won by a quick search, beside a title holding the word', async () => {
    await openDeals();
    await page.getByRole('searchbox', { name: 'Search Deals' }).fill('won');
    await page.getByRole('searchbox', { name: 'Search Deals' }).press('Enter');
    await grid().locator('tbody th[scope="row"]', { hasText: 'Anvils' }).waitFor();
    await eventually('the search to list its matches', async () => expect((await rowTitles()).map((title) => title.trim()).sort()).toEqual(['Anvils', 'Springs', 'Wonder glue']));
    await screenshotBothSchemes(page, 'first-use-search-option-label');
  });

  it('closes the filter popover when the filter is applied, on Escape and on a click outside', async () => {
    await openDeals();
    const button = page.locator('.filter-menu > summary');
    const popover = page.locator('.filter-menu .toolbar-popover');
    await button.click();
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByRole('group', { name: 'Condition 1' }).getByRole('textbox').fill('Rockets');
    await screenshotBothSchemes(page, 'first-use-filter-open');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await popover.waitFor({ state: 'hidden' });
    expect(await focusedLabel(page)).toBe('Filter (applied)');
    await eventually('the filter to apply', async () => expect((await rowTitles()).map((title) => title.trim())).toEqual(['Rockets']));
    await screenshotBothSchemes(page, 'first-use-filter-applied');

    await button.click();
    await popover.waitFor();
    await page.keyboard.press('Escape');
    await popover.waitFor({ state: 'hidden' });
    expect(await focusedLabel(page)).toBe('Filter (applied)');

    await button.click();
    await popover.waitFor();
    await page.getByRole('heading', { name: 'Deals records', level: 1 }).click();
    await popover.waitFor({ state: 'hidden' });
  });

  it('imports a relation column of company titles, listing a missing and an ambiguous title as row errors', async () => {
    await openDeals();
    const file = join(folder, 'deals.csv');
    writeFileSync(file, 'Title,Stage,Company\r\nImported one,Won,acme\r\nImported two,Lead,Initech\r\nImported three,Lead,Twin\r\nImported four,Lost,GLOBEX\r\n');
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import CSV into Deals' });
    await dialog.getByLabel('CSV file').setInputFiles(file);
    await dialog.getByRole('button', { name: 'Check 4 rows' }).click();
    await dialog.getByText(/2 rows are ready to import\. 2 rows have errors/).waitFor();
    await dialog.locator('.import-problem-column', { hasText: 'No companies record you can see is titled “Initech”' }).waitFor();
    await dialog.locator('.import-problem-column', { hasText: '2 companies records are titled “Twin”: write the id of the one you mean' }).waitFor();
    await screenshotBothSchemes(page, 'first-use-import-relation-titles');

    await dialog.getByRole('button', { name: 'Leave out 2 rows and import 2' }).click();
    await dialog.getByText('Imported 2 of 2 records.').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    const imported = await rpc<{ items: ApiRecord[] }>('records.list', { model: 'deals', filter: { field: 'title', op: 'startsWith', value: 'Imported' }, sort: 'title' });
    expect(imported.items.map((record) => [record.title, record.data['company']])).toEqual([
      ['Imported four', companies['Globex']],
      ['Imported one', companies['Acme']],
    ]);
  });

  it('lists the variables of a record trigger beside the action, inserting one by a click', async () => {
    await page.goto(`${api.url}/automations/new`);
    await page.getByRole('heading', { name: 'New automation', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: /^Name/ }).fill('Tell me of new deals');
    await page.getByRole('combobox', { name: 'When' }).selectOption('deals');
    await page.getByRole('combobox', { name: /^Event type/ }).selectOption('data-models.deals.record-created');
    await page.getByRole('combobox', { name: 'Action 1 type' }).selectOption('notify');
    const variables = page.getByRole('complementary', { name: 'Variables' });
    await variables.getByRole('button', { name: /^Insert \{\{event\.payload\.record\.data\.stage\}\}/ }).waitFor();
    const title = page.getByRole('textbox', { name: /^Title/ });
    await title.fill('New deal: ');
    await variables.getByRole('button', { name: /^Insert \{\{event\.payload\.record\.title\}\}/ }).click();
    expect(await title.inputValue()).toBe('New deal: {{event.payload.record.title}}');
    await screenshotBothSchemes(page, 'first-use-automation-variables');
  });

  it('shows a new notification in the bell and the open inbox without a reload, and a mark-as-read lowers the count', async () => {
    await page.goto(`${api.url}/inbox`);
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Notifications', exact: true }).waitFor();
    await rpc('notifications.send', { role: 'owner', title: 'Quarterly numbers are in' });
    // The bell asks every 20 seconds while the tab is visible.
    await page.getByRole('link', { name: 'Notifications, 1 unread' }).waitFor({ timeout: 45_000 });
    await page.getByText('Quarterly numbers are in').waitFor();
    await screenshotBothSchemes(page, 'first-use-bell-live');
    await page.getByRole('button', { name: 'Mark “Quarterly numbers are in” as read' }).click();
    await page.getByRole('link', { name: 'Notifications', exact: true }).waitFor();
  });
});
