import type { Locator, Page, Request, Response } from 'playwright-core';
import { launchChromium, screenshotBothWidths, type Browser } from './support/chromium';
import { startConsoleApi, type ConsoleApi } from './support/console-api';
import { eventually } from './support/eventually';
import { pageRpc, signInWithNewOrganization } from './support/page-session';

interface ApiRecord {
  id: string;
  title: string;
  data: Record<string, unknown>;
}

const DEALS = 300;
const dealTitle = (index: number) => `Deal ${String(index).padStart(3, '0')}`;

/**
 * The records grid as a spreadsheet, over a real api process and database in Debian's Chromium:
 * typed cells, inline edits (a locale number, a conflict, a relation by title), scrolling through
 * pages, the view in the address and bulk work, each checked over /api/v1.
 */
describe('the records grid in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  let apiKey = '';
  const ids: Record<string, string> = {};
  const companies: Record<string, string> = {};
  const rpcCalls: string[] = [];

  const rpc = <T>(procedure: string, input: unknown) => pageRpc<T>(page, api.url, procedure, input);
  const rest = (path: string, init: RequestInit = {}) =>
    fetch(`${api.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
  /** The record as an integration sees it: GET /api/v1/records/{id}. */
  const restRecord = async (id: string): Promise<ApiRecord> => {
    const response = await rest(`/records/${id}`);
    expect(response.status).toBe(200);
    return (await response.json()) as ApiRecord;
  };
  const answered = (procedure: string) => page.waitForResponse((response: Response) => new URL(response.url()).pathname === `/rpc/${procedure}`);
  const grid = () => page.getByRole('grid');
  const row = (title: string) => grid().locator('tbody tr', { has: page.getByRole('rowheader', { name: title, exact: true }) });
  /** A cell of a row by its column's position among the columns shown (the title is 0). */
  const cell = async (title: string, columnName: string): Promise<Locator> => {
    const headers = await grid().locator('thead th').allTextContents();
    // The first header is the select-all box; cells are counted the same way in a row.
    const index = headers.findIndex((text) => text.replace(/[▲▼]|, sort.*$/g, '').trim().startsWith(columnName));
    expect(index).toBeGreaterThan(0);
    return row(title).locator('th, td').nth(index);
  };
  /** Screenshots at both widths, light, then dark as the system preference asks (for the grid's main states). */
  const screenshots = async (name: string) => {
    await screenshotBothWidths(page, name);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshotBothWidths(page, `${name}-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
  };
  const activeCell = () => page.evaluate<string | null>('document.activeElement && document.activeElement.getAttribute("data-cell")');
  const openGrid = async (search = '') => {
    await page.goto(`${api.url}/models/deals/records${search}`);
    await page.getByRole('heading', { name: 'Deals records', level: 1 }).waitFor();
    await grid().waitFor();
  };

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await launchChromium();
    page = browser.page;
    page.on('request', (request: Request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/rpc/')) rpcCalls.push(path.slice('/rpc/'.length));
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('sets up a model of deals with a field of each shown type, and 300 deals', async () => {
    await signInWithNewOrganization(page, api.url, 'Grid E2E');
    apiKey = (await rpc<{ token: string }>('apiKeys.create', { name: 'grid e2e', fullAccess: true })).token;
    await rpc('dataModels.create', { key: 'companies', name: 'Companies' });
    for (const name of ['Initech', 'Globex', 'Umbrella']) companies[name] = (await rpc<ApiRecord>('records.create', { model: 'companies', data: { title: name } })).id;
    await rpc('dataModels.create', { key: 'deals', name: 'Deals' });
    const fields: Array<Record<string, unknown>> = [
      { key: 'amount', name: 'Amount', type: 'NUMBER', config: { precision: 2, min: 0 } },
      {
        key: 'stage',
        name: 'Stage',
        type: 'SELECT',
        config: { options: [{ value: 'lead', label: 'Lead', color: 'blue' }, { value: 'won', label: 'Won', color: 'green' }, { value: 'lost', label: 'Lost', color: '#d33' }] },
      },
      { key: 'closes', name: 'Closes', type: 'DATE' },
      { key: 'signed', name: 'Signed', type: 'BOOLEAN' },
      { key: 'company', name: 'Company', type: 'RELATION', config: { targetModel: 'companies' } },
      { key: 'contact', name: 'Contact', type: 'EMAIL' },
      { key: 'site', name: 'Site', type: 'URL' },
      { key: 'notes', name: 'Notes', type: 'RICH_TEXT' },
    ];
    for (const field of fields) await rpc('dataModels.fields.create', { model: 'deals', ...field });
    const records = Array.from({ length: DEALS }, (_, offset) => {
      const index = offset + 1;
      return {
        data: {
          title: dealTitle(index),
          amount: 1000 + index + 0.5,
          stage: ['lead', 'won', 'lost'][index % 3],
          closes: `2026-12-${String((index % 28) + 1).padStart(2, '0')}`,
          signed: index % 2 === 0,
          company: companies[['Initech', 'Globex', 'Umbrella'][index % 3] as string],
          contact: `buyer${index}@example.com`,
          site: `https://deal${index}.example`,
          notes: `<p>Call <strong>back</strong> about deal ${index}</p>`,
        },
      };
    });
    const created = await rest('/models/deals/records', { method: 'POST', body: JSON.stringify({ records }) });
    expect(created.status).toBe(201);
    for (const record of ((await created.json()) as { items: ApiRecord[] }).items) ids[record.title] = record.id;
    expect(Object.keys(ids)).toHaveLength(DEALS);
  });

  it('shows each type in its own way, with at least 20 compact rows in a 1280x800 window', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openGrid('?sort=title');
    await row(dealTitle(1)).waitFor();
    expect(await (await cell(dealTitle(1), 'Amount')).textContent()).toBe('1,001.50');
    expect(await (await cell(dealTitle(1), 'Amount')).evaluate((element) => (globalThis as unknown as { getComputedStyle(target: unknown): { textAlign: string } }).getComputedStyle(element).textAlign)).toBe('right');
    expect(await (await cell(dealTitle(1), 'Stage')).locator('.chip').textContent()).toBe('Won');
    expect(await (await cell(dealTitle(1), 'Company')).textContent()).toBe('Globex');
    expect(await (await cell(dealTitle(1), 'Closes')).textContent()).toBe('Dec 2, 2026');
    expect(await (await cell(dealTitle(2), 'Signed')).getByRole('checkbox').isChecked()).toBe(true);
    expect(await (await cell(dealTitle(1), 'Contact')).getByRole('link').getAttribute('href')).toBe('mailto:buyer1@example.com');
    expect(await (await cell(dealTitle(1), 'Notes')).textContent()).toBe('Call back about deal 1');

    const visibleRows = await page.evaluate<number>(`(() => {
      const box = document.querySelector('.records-grid').getBoundingClientRect();
      const head = document.querySelector('.records-grid thead').getBoundingClientRect();
      return [...document.querySelectorAll('.records-grid tbody tr[aria-rowindex]')].filter((tr) => {
        const rect = tr.getBoundingClientRect();
        return rect.top >= head.bottom - 1 && rect.bottom <= Math.min(box.bottom, window.innerHeight) + 1;
      }).length;
    })()`);
    expect(visibleRows).toBeGreaterThanOrEqual(20);
    // The title column and the row actions stay in view when the grid scrolls sideways.
    await page.locator('.records-grid').evaluate((element) => element.scrollBy(2000, 0));
    const box = await page.locator('.records-grid').boundingBox();
    const title = await row(dealTitle(1)).getByRole('rowheader').boundingBox();
    const actions = await row(dealTitle(1)).getByRole('button', { name: `Delete ${dealTitle(1)}` }).boundingBox();
    expect(await page.locator('.records-grid').evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
    // Just right of the row's checkbox (36 px), and the actions within the grid's right edge.
    expect(Math.abs((title?.x ?? 0) - (box?.x ?? 0) - 37)).toBeLessThanOrEqual(2);
    expect((actions?.x ?? 2000) + (actions?.width ?? 0)).toBeLessThanOrEqual((box?.x ?? 0) + (box?.width ?? 0));
    await page.locator('.records-grid').evaluate((element) => element.scrollTo(0, 0));
    await screenshots('records-grid');
  });

  it('renders only the rows in view, and loads the next pages as it scrolls to the end', async () => {
    await openGrid('?sort=title&limit=50');
    await row(dealTitle(1)).waitFor();
    const listsBefore = rpcCalls.filter((call) => call === 'records.list').length;
    await eventually(
      'the last deal is shown',
      async () => {
        await page.locator('.records-grid').evaluate((element) => element.scrollTo(0, element.scrollHeight));
        expect(await row(dealTitle(DEALS)).count()).toBe(1);
      },
      15_000,
    );
    expect(rpcCalls.filter((call) => call === 'records.list').length - listsBefore).toBeGreaterThanOrEqual(4);
    expect(await grid().locator('tbody tr[aria-rowindex]').count()).toBeLessThan(100);
    await page.getByText(`${DEALS} records loaded`).waitFor();
  });

  it('edits a NUMBER cell in place with a locale number, after refusing a bad one in the browser, as GET /api/v1 then tells', async () => {
    await openGrid('?sort=title');
    const amount = await cell(dealTitle(1), 'Amount');
    await amount.click();
    await page.keyboard.press('Enter');
    const input = page.getByRole('textbox', { name: `Amount of ${dealTitle(1)}` });
    await input.fill('1.234');
    const callsBefore = rpcCalls.length;
    await page.keyboard.press('Enter');
    await page.getByText('Must have at most 2 decimal places.').waitFor();
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(rpcCalls.slice(callsBefore).filter((call) => call === 'records.update')).toEqual([]);
    await screenshots('records-cell-error');

    // Escape gives up the edit; the refusal stays on the cell.
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'detached' });
    expect(await amount.getAttribute('aria-invalid')).toBe('true');

    await page.keyboard.press('Enter');
    await input.fill('1,234.5');
    const update = page.waitForRequest((request) => new URL(request.url()).pathname === '/rpc/records.update');
    const saved = answered('records.update');
    await page.keyboard.press('Enter');
    const sent = JSON.parse((await update).postData() ?? '{}') as Record<string, unknown>;
    expect((await saved).status()).toBe(200);
    expect(sent).toEqual({ id: ids[dealTitle(1)], data: { amount: 1234.5 }, expectedVersion: 1 });
    expect((await restRecord(ids[dealTitle(1)] as string)).data.amount).toBe(1234.5);
    await eventually('the cell shows the saved number', async () => expect(await amount.textContent()).toBe('1,234.50'), 5_000);
    expect(await amount.getAttribute('aria-invalid')).toBeNull();
    // Enter moved down a row, as in a spreadsheet.
    expect(await activeCell()).toBe('1:1');
  });

  it('says when someone else changed the record meanwhile (412), and saves once it is reloaded', async () => {
    await openGrid('?sort=title');
    const amount = await cell(dealTitle(2), 'Amount');
    await amount.click();
    const versionRead = answered('records.get');
    await page.keyboard.press('Enter');
    await versionRead;
    // Another client changes the record between the read and the save.
    const other = await rest(`/records/${ids[dealTitle(2)]}`, { method: 'PATCH', body: JSON.stringify({ data: { amount: 7 } }) });
    expect(other.status).toBe(200);

    await page.getByRole('textbox', { name: `Amount of ${dealTitle(2)}` }).fill('99');
    const refused = answered('records.update');
    await page.keyboard.press('Enter');
    expect((await refused).status()).toBe(412);
    const alert = page.locator('.records-conflict');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(`Someone else changed ${dealTitle(2)} after it was loaded`);
    expect((await restRecord(ids[dealTitle(2)] as string)).data.amount).toBe(7);
    await screenshotBothWidths(page, 'records-conflict');

    await page.keyboard.press('Escape');
    await alert.getByRole('button', { name: `Reload ${dealTitle(2)}` }).click();
    await alert.waitFor({ state: 'detached' });
    await eventually('the cell shows the other change', async () => expect(await amount.textContent()).toBe('7.00'), 5_000);
    await amount.dblclick();
    await page.getByRole('textbox', { name: `Amount of ${dealTitle(2)}` }).fill('99');
    const saved = answered('records.update');
    await page.keyboard.press('Enter');
    expect((await saved).status()).toBe(200);
    expect((await restRecord(ids[dealTitle(2)] as string)).data.amount).toBe(99);
  });

  it('picks a related record by its title, searching the target model', async () => {
    await openGrid('?sort=title');
    const company = await cell(dealTitle(3), 'Company');
    expect(await company.textContent()).toBe('Initech');
    await company.click();
    await page.keyboard.press('Enter');
    const search = page.getByRole('combobox', { name: `Search companies for Company of ${dealTitle(3)}` });
    const searched = page.waitForRequest((request) => new URL(request.url()).pathname === '/rpc/records.list' && request.postData()?.includes('"q":"glob"') === true);
    await search.fill('glob');
    await searched;
    // Globex was listed before the search too: wait for the list to be the search's answer.
    const options = page.getByRole('listbox', { name: 'companies records' }).getByRole('option');
    await eventually('the list shows what the search found', async () => expect(await options.allTextContents()).toEqual(['Globex']), 5_000);
    await screenshotBothWidths(page, 'records-relation-picker');
    const saved = answered('records.update');
    await page.keyboard.press('Enter');
    expect((await saved).status()).toBe(200);
    expect((await restRecord(ids[dealTitle(3)] as string)).data.company).toBe(companies['Globex']);
    await eventually('the cell shows the title', async () => expect(await company.textContent()).toBe('Globex'), 5_000);
  });

  it('chooses a select option from its coloured list with the keyboard, and a day in a date input', async () => {
    await openGrid('?sort=title');
    const stage = await cell(dealTitle(6), 'Stage');
    expect(await stage.textContent()).toBe('Lead');
    await stage.click();
    await page.keyboard.press('Enter');
    const options = page.getByRole('listbox', { name: `Stage of ${dealTitle(6)}` });
    await options.getByRole('option', { name: 'Lost' }).waitFor();
    expect(await options.getByRole('option').allTextContents()).toEqual(['No value', 'Lead', 'Won', 'Lost']);
    expect(await options.getByRole('option', { selected: true }).textContent()).toBe('Lead');
    await page.keyboard.press('ArrowDown');
    const saved = answered('records.update');
    await page.keyboard.press('Enter');
    expect((await saved).status()).toBe(200);
    expect((await restRecord(ids[dealTitle(6)] as string)).data.stage).toBe('won');
    await eventually('the chip shows the option', async () => expect(await stage.textContent()).toBe('Won'), 5_000);

    const closes = await cell(dealTitle(6), 'Closes');
    await closes.dblclick();
    await page.getByLabel(`Closes of ${dealTitle(6)}`).fill('2027-01-15');
    const dated = answered('records.update');
    await page.keyboard.press('Tab');
    expect((await dated).status()).toBe(200);
    expect((await restRecord(ids[dealTitle(6)] as string)).data.closes).toBe('2027-01-15');
    await eventually('the cell shows the day', async () => expect(await closes.textContent()).toBe('Jan 15, 2027'), 5_000);
  });

  it('toggles a yes / no cell with a click or Space, moves with the arrows and Tab, and empties a cell with Delete', async () => {
    await openGrid('?sort=title');
    const signed = await cell(dealTitle(5), 'Signed');
    expect(await signed.getByRole('checkbox').isChecked()).toBe(false);
    const saved = answered('records.update');
    await signed.getByRole('checkbox').click();
    expect((await saved).status()).toBe(200);
    expect((await restRecord(ids[dealTitle(5)] as string)).data.signed).toBe(true);
    await eventually('the box shows the saved value', async () => expect(await signed.getByRole('checkbox').isChecked()).toBe(true), 5_000);

    const position = (await activeCell()) as string;
    const [rowIndex, colIndex] = position.split(':').map(Number) as [number, number];
    await page.keyboard.press('ArrowUp');
    expect(await activeCell()).toBe(`${rowIndex - 1}:${colIndex}`);
    await page.keyboard.press('Tab');
    expect(await activeCell()).toBe(`${rowIndex - 1}:${colIndex + 1}`);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('ArrowDown');
    expect(await activeCell()).toBe(position);
    const unsaved = answered('records.update');
    await page.keyboard.press(' ');
    expect((await unsaved).status()).toBe(200);
    expect((await restRecord(ids[dealTitle(5)] as string)).data.signed).toBe(false);

    // Delete empties a cell; the title is required, so its rules refuse that before any request.
    const contact = await cell(dealTitle(5), 'Contact');
    await contact.click();
    const cleared = answered('records.update');
    await page.keyboard.press('Delete');
    expect((await cleared).status()).toBe(200);
    expect((await restRecord(ids[dealTitle(5)] as string)).data.contact).toBeUndefined();
    await eventually('the cell is empty', async () => expect(await contact.textContent()).toBe(''), 5_000);
    await row(dealTitle(5)).getByRole('rowheader').click();
    const callsBefore = rpcCalls.length;
    await page.keyboard.press('Delete');
    await page.getByRole('textbox', { name: `Title of ${dealTitle(5)}` }).waitFor();
    expect(await page.locator('.cell-error').textContent()).toBeTruthy();
    expect(rpcCalls.slice(callsBefore).filter((call) => call === 'records.update')).toEqual([]);
    await page.keyboard.press('Escape');
  });

  it('keeps the search, sort, hidden and sized columns in the address, so a reload shows the same view', async () => {
    await openGrid();
    await page.getByRole('searchbox', { name: 'Search Deals' }).fill('Deal 01');
    await eventually('the search is in the address', async () => expect(new URL(page.url()).searchParams.get('q')).toBe('Deal 01'), 5_000);
    await grid().getByRole('button', { name: /^Amount/ }).click();
    await grid().locator('th[aria-sort="ascending"]', { hasText: 'Amount' }).waitFor();
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('checkbox', { name: 'Notes' }).uncheck();
    await page.getByRole('button', { name: 'Move Company left' }).click();
    await page.keyboard.press('Escape');
    const titleWidth = page.getByRole('separator', { name: 'Width of Title' });
    await titleWidth.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await eventually('the width is in the address', async () => expect(new URL(page.url()).searchParams.get('widths')).toBe('title:272'), 5_000);
    // The pointer resizes a column by its handle, and drags a header before another.
    const handle = await grid().getByRole('separator', { name: 'Width of Amount' }).boundingBox();
    expect(handle).not.toBeNull();
    await page.mouse.move((handle?.x ?? 0) + 3, (handle?.y ?? 0) + 5);
    await page.mouse.down();
    await page.mouse.move((handle?.x ?? 0) + 43, (handle?.y ?? 0) + 5, { steps: 4 });
    await page.mouse.up();
    await eventually('the dragged width is in the address', async () => expect(new URL(page.url()).searchParams.get('widths')).toBe('title:272,amount:160'), 5_000);
    await grid().getByRole('columnheader', { name: /^Closes/ }).dragTo(grid().getByRole('columnheader', { name: /^Stage/ }));
    await eventually('the dragged order is in the address', async () => expect(new URL(page.url()).searchParams.get('order')?.startsWith('amount,closes,stage')).toBe(true), 5_000);
    const shown = async () => (await grid().locator('thead th').allTextContents()).map((text) => text.replace(/[▲▼]|, sort.*$/g, '').trim());
    const before = await shown();
    expect(before).not.toContain('Notes');
    expect(before.indexOf('Company')).toBeLessThan(before.indexOf('Signed'));
    expect(before.indexOf('Closes')).toBeLessThan(before.indexOf('Stage'));

    await page.reload();
    await page.getByRole('heading', { name: 'Deals records', level: 1 }).waitFor();
    await row('Deal 010').waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search Deals' }).inputValue()).toBe('Deal 01');
    expect(await shown()).toEqual(before);
    expect(await grid().locator('th[aria-sort="ascending"]').textContent()).toContain('Amount');
    expect(await grid().getByRole('rowheader').allTextContents()).toEqual(Array.from({ length: 10 }, (_, index) => dealTitle(10 + index)));
    expect(await titleWidth.getAttribute('aria-valuenow')).toBe('272');
    expect(await grid().getByRole('separator', { name: 'Width of Amount' }).getAttribute('aria-valuenow')).toBe('160');
    await screenshotBothWidths(page, 'records-view');
  });

  it('deletes the ticked records in bulk after confirming their number, and edits a field of every record the view matches', async () => {
    await openGrid('?q=Deal+01&sort=amount');
    await row('Deal 019').waitFor();
    await grid().getByRole('checkbox', { name: 'Select all loaded records' }).check();
    await page.getByText('10 records selected').waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 10 records?' });
    await confirm.waitFor();
    await screenshotBothWidths(page, 'records-bulk-delete');
    const deleted = answered('records.deleteMany');
    await confirm.getByRole('button', { name: 'Delete 10 records' }).click();
    expect((await deleted).status()).toBe(200);
    await page.getByText('No records match this view.').waitFor();
    const live = (await (await rest('/models/deals/records?q=Deal%2001')).json()) as { items: ApiRecord[] };
    expect(live.items).toEqual([]);
    const trash = (await (await rest('/models/deals/records?q=Deal%2001&deleted=only&limit=100')).json()) as { items: ApiRecord[] };
    expect(trash.items.map((record) => record.title).sort()).toEqual(Array.from({ length: 10 }, (_, index) => dealTitle(10 + index)));

    // "Deal 2" matches Deal 200 to Deal 299: 100 records, 40 loaded at first.
    await openGrid('?q=Deal+2&limit=40');
    await row('Deal 299').or(row('Deal 200')).first().waitFor();
    await grid().getByRole('checkbox', { name: 'Select all loaded records' }).check();
    await page.getByRole('button', { name: 'Select all matching the view' }).click();
    await page.getByText('All matching records selected').waitFor();
    await page.getByRole('button', { name: 'Edit a field…' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit 100 records' });
    await edit.waitFor();
    await edit.getByRole('combobox', { name: 'Field' }).selectOption('stage');
    await edit.getByRole('combobox', { name: 'Stage' }).selectOption('lost');
    const updated = answered('records.updateMany');
    await edit.getByRole('button', { name: 'Set Stage on 100 records' }).click();
    expect((await updated).status()).toBe(200);
    await edit.waitFor({ state: 'detached' });
    const matching = (await (await rest('/models/deals/records?q=Deal%202&limit=100')).json()) as { items: ApiRecord[] };
    expect(matching.items).toHaveLength(100);
    expect(new Set(matching.items.map((record) => record.data.stage))).toEqual(new Set(['lost']));
    expect(((await restRecord(ids[dealTitle(199)] as string)).data.stage)).toBe(['lead', 'won', 'lost'][199 % 3]);
  });
});
