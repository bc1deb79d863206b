import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, Request } from 'playwright-core';
import { launchChromium, type Browser } from './support/chromium';
import { screenshotBothSchemes } from './support/color-schemes';
import { startConsoleApi, type ConsoleApi } from './support/console-api';
import { pageRpc, signInWithNewOrganization } from './support/page-session';

interface ApiRecord {
  id: string;
  title: string;
  data: Record<string, unknown>;
}

const ROWS = 1000;
/** Data rows (0-based) the rules refuse: a word for a number, an email without a domain, no title. */
const BAD = { age: 99, email: 499, title: 899 } as const;
const contactTitle = (row: number) => `Contact ${String(row + 1).padStart(4, '0')}`;

function contactsCsv(): string {
  const lines = ['Title,Email,AGE,Plan'];
  for (let row = 0; row < ROWS; row += 1) {
    const title = row === BAD.title ? '' : contactTitle(row);
    const email = row === BAD.email ? 'not-an-email' : `person${row}@example.com`;
    const age = row === BAD.age ? 'old' : String(20 + (row % 50));
    lines.push(`${title},${email},${age},${row % 2 === 0 ? 'Free' : 'pro'}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * CSV import in Chromium over a real api: 1,000 rows of which 3 are bad; every row is checked in
 * the browser and nothing is sent until the bad ones are left out; then exactly the 997 good ones
 * exist, checked over /api/v1. The bad rows' CSV, corrected in place, imports the last three.
 */
describe('CSV import in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  let apiKey = '';
  let folder = '';
  let badRowsFile = '';
  const batches: number[] = [];
  /** The console's scripts and styles the page has asked for. */
  const assets: string[] = [];

  const rpc = <T>(procedure: string, input: unknown) => pageRpc<T>(page, api.url, procedure, input);
  /** Every record of the model as /api/v1 lists it, page after page. */
  async function restRecords(model = 'contacts'): Promise<ApiRecord[]> {
    const records: ApiRecord[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ limit: '100', sort: 'title', ...(cursor ? { cursor } : {}) });
      const response = await fetch(`${api.url}/api/v1/models/${model}/records?${query}`, { headers: { Authorization: `Bearer ${apiKey}` } });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { items: ApiRecord[]; nextCursor: string | null };
      records.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return records;
  }
  const dialog = () => page.getByRole('dialog', { name: 'Import CSV into Contacts' });

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await launchChromium();
    page = browser.page;
    folder = mkdtempSync(join(tmpdir(), 'console-import-e2e-'));
    page.on('request', (request: Request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/assets/')) assets.push(path);
      if (new URL(request.url()).pathname === '/rpc/records.createMany') batches.push((JSON.parse(request.postData() ?? '{}') as { records: unknown[] }).records.length);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('maps the columns by key or name and lists the 3 bad rows by row and column, sending nothing', async () => {
    await signInWithNewOrganization(page, api.url, 'Import E2E');
    apiKey = (await rpc<{ token: string }>('apiKeys.create', { name: 'import e2e', fullAccess: true })).token;
    await rpc('dataModels.create', { key: 'contacts', name: 'Contacts' });
    await rpc('dataModels.fields.create', { model: 'contacts', key: 'email', name: 'Email', type: 'EMAIL' });
    await rpc('dataModels.fields.create', { model: 'contacts', key: 'age', name: 'Age', type: 'NUMBER', config: { precision: 0, min: 0 } });
    await rpc('dataModels.fields.create', {
      model: 'contacts',
      key: 'plan',
      name: 'Plan',
      type: 'SELECT',
      config: { options: [{ value: 'free', label: 'Free' }, { value: 'pro', label: 'Pro' }] },
    });
    const file = join(folder, 'contacts.csv');
    writeFileSync(file, contactsCsv());

    await page.goto(`${api.url}/models/contacts/records`);
    await page.getByRole('heading', { name: 'Contacts records', level: 1 }).waitFor();
    // The importer and its parser load when someone imports, never with the grid.
    const importer = (name: string) => assets.some((path) => path.startsWith(`/assets/${name}-`));
    expect([importer('ImportDialog'), importer('csv-parse.worker')]).toEqual([false, false]);
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await dialog().getByLabel('CSV file').setInputFiles(file);
    await dialog().getByText('contacts.csv: 1,000 rows.').waitFor();
    expect([importer('ImportDialog'), importer('csv-parse.worker')]).toEqual([true, true]);
    for (const [column, field] of [['Title', 'Title'], ['Email', 'Email'], ['AGE', 'Age'], ['Plan', 'Plan']]) {
      expect(await dialog().getByLabel(`Field for column ${column}`).locator('option:checked').textContent()).toMatch(new RegExp(`^${field}`));
    }
    await screenshotBothSchemes(page, 'import-columns');

    await dialog().getByRole('button', { name: 'Check 1,000 rows' }).click();
    await dialog().getByText('997 rows are ready to import. 3 rows have errors').waitFor();
    const errors = dialog().getByRole('region', { name: 'Rows with errors' });
    const rows = errors.locator('tbody tr');
    const listed: string[][] = [];
    for (let index = 0; index < (await rows.count()); index += 1) listed.push((await rows.nth(index).locator('th, td').allTextContents()).slice(0, 2));
    expect(listed).toEqual([
      [String(BAD.age + 2), 'AGE'],
      [String(BAD.email + 2), 'Email'],
      [String(BAD.title + 2), 'Title'],
    ]);
    expect(await errors.getByLabel(`Row ${BAD.age + 2}, AGE`).inputValue()).toBe('old');
    await screenshotBothSchemes(page, 'import-errors');

    const download = page.waitForEvent('download');
    await dialog().getByRole('button', { name: 'Download the rows with errors (CSV)' }).click();
    badRowsFile = join(folder, 'bad-rows.csv');
    await (await download).saveAs(badRowsFile);
    const badLines = readFileSync(badRowsFile, 'utf8').trim().split(/\r\n/);
    expect(badLines).toHaveLength(4);
    expect(badLines[0]).toBe('Title,Email,AGE,Plan,Import errors');
    expect(badLines[1]).toMatch(new RegExp(`^${contactTitle(BAD.age)},person${BAD.age}@example.com,old,pro,"?AGE: `));

    expect(batches).toEqual([]);
    expect(await restRecords()).toEqual([]);
  });

  it('leaves the bad rows out on request and imports exactly the 997 others', async () => {
    await dialog().getByRole('button', { name: 'Leave out 3 rows and import 997' }).click();
    await dialog().getByText('Imported 997 of 997 records.').waitFor();
    expect(batches).toEqual([997]);
    const records = await restRecords();
    expect(records).toHaveLength(997);
    const expected = Array.from({ length: ROWS }, (_, row) => row)
      .filter((row) => !Object.values(BAD).includes(row as never))
      .map(contactTitle);
    expect(records.map((record) => record.title)).toEqual(expected);
    expect(records.find((record) => record.title === contactTitle(0))?.data).toEqual({ title: contactTitle(0), email: 'person0@example.com', age: 20, plan: 'free' });
    await dialog().getByRole('button', { name: 'Close' }).click();
    await dialog().waitFor({ state: 'detached' });
  });

  it('imports the downloaded bad rows once corrected in place', async () => {
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await dialog().getByLabel('CSV file').setInputFiles(badRowsFile);
    expect(await dialog().getByLabel('Field for column Import errors').locator('option:checked').textContent()).toBe('Don’t import');
    await dialog().getByRole('button', { name: 'Check 3 rows' }).click();
    const errors = dialog().getByRole('region', { name: 'Rows with errors' });
    await errors.getByLabel('Row 2, AGE').fill('41');
    await errors.getByLabel('Row 3, Email').fill('person499@example.com');
    await errors.getByLabel('Row 4, Title').fill(contactTitle(BAD.title));
    await dialog().getByRole('button', { name: 'Check again' }).click();
    await dialog().getByText('3 rows are ready to import. Every row passed the checks.').waitFor();
    await dialog().getByRole('button', { name: 'Import 3 records' }).click();
    await dialog().getByText('Imported 3 of 3 records.').waitFor();
    const records = await restRecords();
    expect(records).toHaveLength(ROWS);
    expect(records.find((record) => record.title === contactTitle(BAD.age))?.data).toMatchObject({ age: 41 });
  });
  it('exports the filtered, sorted view with its visible columns, row by row as /api/v1 lists it', async () => {
    const filter = { field: 'plan', op: 'eq', value: 'pro' };
    await page.goto(`${api.url}/models/contacts/records?filter=${encodeURIComponent(JSON.stringify(filter))}&sort=-age,title&hidden=email`);
    await page.getByRole('heading', { name: 'Contacts records', level: 1 }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = join(folder, 'export.csv');
    await (await download).saveAs(file);
    const [header, ...lines] = readFileSync(file, 'utf8').trim().split(/\r\n/);
    expect(header).toBe('id,title,age,plan,createdAt,updatedAt');

    const listed: ApiRecord[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ filter: JSON.stringify(filter), sort: '-age,title', limit: '100', ...(cursor ? { cursor } : {}) });
      const response = await fetch(`${api.url}/api/v1/models/contacts/records?${query}`, { headers: { Authorization: `Bearer ${apiKey}` } });
      const body = (await response.json()) as { items: ApiRecord[]; nextCursor: string | null };
      listed.push(...body.items);
      cursor = body.nextCursor;
    } while (cursor);
    expect(listed).toHaveLength(500);
    expect(lines).toHaveLength(listed.length);
    lines.forEach((line, index) => {
      const record = listed[index] as ApiRecord & { createdAt: string; updatedAt: string };
      expect(line.split(',')).toEqual([record.id, record.title, String(record.data.age), 'pro', record.createdAt, record.updatedAt]);
    });
  });

  it('shows the progress of the batches, and a cancel stops before the next one: whole batches only', async () => {
    await rpc('dataModels.create', { key: 'leads', name: 'Leads' });
    const file = join(folder, 'leads.csv');
    writeFileSync(file, `Title\r\n${Array.from({ length: 2500 }, (_, index) => `Lead ${index}`).join('\r\n')}\r\n`);
    // The first batch is held at the door until the cancel has been pressed.
    let releaseFirst: () => void = () => undefined;
    const pressed = new Promise<void>((resolve) => (releaseFirst = resolve));
    await page.route('**/rpc/records.createMany', async (route) => {
      await pressed;
      await route.continue();
    });
    try {
      await page.goto(`${api.url}/models/leads/records`);
      await page.getByRole('button', { name: 'Import CSV' }).click();
      const leads = page.getByRole('dialog', { name: 'Import CSV into Leads' });
      await leads.getByLabel('CSV file').setInputFiles(file);
      await leads.getByRole('button', { name: 'Check 2,500 rows' }).click();
      await leads.getByRole('button', { name: 'Import 2,500 records' }).click();
      const progress = leads.getByRole('progressbar', { name: 'Imported 0 of 2,500 records' });
      expect(await progress.getAttribute('max')).toBe('2500');
      await leads.getByRole('button', { name: 'Cancel import' }).click();
      releaseFirst();
      await leads.getByText('Imported 1,000 of 2,500 records.').waitFor();
      await leads.getByText('The import was cancelled: the rest were not sent.').waitFor();
    } finally {
      releaseFirst();
      await page.unroute('**/rpc/records.createMany');
    }
    const leads = await restRecords('leads');
    expect(leads.map((lead) => lead.title).sort()).toEqual(Array.from({ length: 1000 }, (_, index) => `Lead ${index}`).sort());
  });
});
