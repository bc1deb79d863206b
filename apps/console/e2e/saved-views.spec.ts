import { chromium, type Browser as PlaywrightBrowser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_PATH, WIDTHS } from './support/chromium';
import { screenshotBothSchemes } from './support/color-schemes';
import { startConsoleApi, type ConsoleApi } from './support/console-api';
import { eventually } from './support/eventually';
import { pageRpc, signInWithNewOrganization } from './support/page-session';

interface GridView {
  id: string;
  name: string;
  shared: boolean;
  state: { q?: string; sort: string; limit: number; hidden: string[] };
}

const MEMBER = 'carol@console-e2e.example';

/**
 * Saved views of the records grid in Chromium over a real api: a view saved personal or shared,
 * applied from the menu, changed and deleted; the shared one seen and applied by another member,
 * who may not change it. What was stored is checked through /rpc (views have no REST route).
 */
describe('saved grid views in Chromium', () => {
  let api: ConsoleApi;
  let browser: PlaywrightBrowser;
  let admin: BrowserContext;
  let page: Page;

  const rpc = <T>(procedure: string, input: unknown = {}) => pageRpc<T>(page, api.url, procedure, input);
  const views = async () => (await rpc<{ items: GridView[] }>('views.grids.list', { modelKey: 'deals' })).items;
  const menu = (on: Page) => on.getByRole('group', { name: 'Saved views' });
  const picker = (on: Page) => menu(on).getByLabel('View', { exact: true });
  /** Waits until the grid lists these titles (in this order), after the list asked for has arrived. */
  const gridShows = (on: Page, expected: string[]) =>
    eventually(`the grid lists ${expected.join(', ')}`, async () => {
      const listed = (await on.getByRole('grid').getByRole('rowheader').allTextContents()).map((text) => text.trim());
      expect(listed).toEqual(expected);
    });
  const newContext = async () => {
    const context = await browser.newContext({ viewport: { width: WIDTHS.wide, height: 900 } });
    context.setDefaultTimeout(15_000);
    return context;
  };

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    admin = await newContext();
    page = await admin.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('saves the grid as it is as a shared view and as a personal one', async () => {
    await signInWithNewOrganization(page, api.url, 'Views E2E');
    await rpc('dataModels.create', { key: 'deals', name: 'Deals' });
    await rpc('dataModels.fields.create', { model: 'deals', key: 'amount', name: 'Amount', type: 'NUMBER' });
    for (const [title, amount] of [['Big deal A', 5000], ['Big deal B', 7000], ['Small deal', 10]] as const) {
      await rpc('records.create', { model: 'deals', data: { title, amount } });
    }

    await page.goto(`${api.url}/models/deals/records?q=Big&sort=-amount`);
    await page.getByRole('heading', { name: 'Deals records', level: 1 }).waitFor();
    await gridShows(page, ['Big deal B', 'Big deal A']);
    await menu(page).getByRole('button', { name: 'Save view…' }).click();
    let dialog = page.getByRole('dialog', { name: 'Save view' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Big deals');
    await dialog.getByRole('checkbox', { name: /Share with the organization/ }).check();
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await dialog.waitFor({ state: 'detached' });
    await picker(page).locator('option:checked', { hasText: /^Big deals$/ }).waitFor({ state: 'attached' });

    await page.goto(`${api.url}/models/deals/records?sort=title`);
    await menu(page).getByRole('button', { name: 'Save view…' }).click();
    dialog = page.getByRole('dialog', { name: 'Save view' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('By title');
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await dialog.waitFor({ state: 'detached' });

    expect((await views()).map(({ name, shared, state }) => ({ name, shared, q: state.q, sort: state.sort }))).toEqual([
      { name: 'Big deals', shared: true, q: 'Big', sort: '-amount' },
      { name: 'By title', shared: false, q: undefined, sort: 'title' },
    ]);
    await screenshotBothSchemes(page, 'saved-views');
  });

  it('applies a view picked from the menu to the address and the grid, and back to all records', async () => {
    await picker(page).selectOption({ label: 'Big deals' });
    await page.waitForURL(/q=Big/);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('-amount');
    await gridShows(page, ['Big deal B', 'Big deal A']);
    await picker(page).selectOption({ label: 'All records' });
    await page.waitForURL((url) => url.search === '');
    // The default sort: newest first.
    await gridShows(page, ['Small deal', 'Big deal B', 'Big deal A']);
  });

  it('shows the shared view, not the personal one, to another member, who applies it but may not change it', async () => {
    const { token } = await rpc<{ token: string }>('organizations.invite', { email: MEMBER, roleKeys: ['member'] });
    const other = await newContext();
    try {
      const carol = await other.newPage();
      await carol.goto(`${api.url}/`);
      await carol.getByRole('textbox', { name: 'Or continue as any email' }).fill(MEMBER);
      await carol.getByRole('button', { name: 'Continue', exact: true }).click();
      await carol.getByRole('heading', { name: 'Create your organization' }).waitFor();
      await pageRpc(carol, api.url, 'organizations.acceptInvite', { token });
      await carol.goto(`${api.url}/models/deals/records`);
      await carol.getByRole('heading', { name: 'Deals records', level: 1 }).waitFor();
      await picker(carol).locator('option', { hasText: 'Big deals' }).waitFor({ state: 'attached' });
      expect(await picker(carol).locator('option').allTextContents()).toEqual(['All records', 'Big deals']);
      await picker(carol).selectOption({ label: 'Big deals' });
      await carol.waitForURL(/q=Big/);
      await gridShows(carol, ['Big deal B', 'Big deal A']);
      expect(await menu(carol).getByRole('button', { name: /Delete view/ }).count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('saves a change of the picked view over it, and deletes a view', async () => {
    await picker(page).selectOption({ label: 'Big deals' });
    await page.waitForURL(/q=Big/);
    // The picked view is remembered by the tab, so a changed address still knows which view it was.
    await page.goto(`${page.url()}&limit=10`);
    await picker(page).locator('option:checked', { hasText: 'Big deals (edited)' }).waitFor({ state: 'attached' });
    await menu(page).getByRole('button', { name: 'Save changes' }).click();
    await picker(page).locator('option:checked', { hasText: /^Big deals$/ }).waitFor({ state: 'attached' });
    expect((await views()).find((view) => view.name === 'Big deals')?.state.limit).toBe(10);

    await picker(page).selectOption({ label: 'By title' });
    await menu(page).getByRole('button', { name: 'Delete view By title' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete view By title?' });
    await confirm.getByRole('button', { name: 'Delete view' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await views()).map((view) => view.name)).toEqual(['Big deals']);
  });
});
