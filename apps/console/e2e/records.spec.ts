import type { Page, Request } from 'playwright-core';
import { launchChromium, screenshotBothWidths, type Browser } from './support/chromium';
import { E2E_ADMIN_EMAIL, startConsoleApi, type ConsoleApi } from './support/console-api';
import { focusedLabel, pageRpc } from './support/page-session';

interface CreatedRecord {
  id: string;
  title: string;
}

/** Data models, fields and records in the console: a real api process and database, Debian's Chromium. */
describe('the data models and records pages in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  /** Every call the page made to /rpc, by procedure. */
  const rpcCalls: string[] = [];


  const rpc = <T>(procedure: string, input: unknown) => pageRpc<T>(page, api.url, procedure, input);

  /** The titles the grid lists, once the list starting with `first` has arrived. */
  async function listedTitles(first: string): Promise<string[]> {
    await page.locator('tbody tr').first().getByRole('rowheader', { name: first, exact: true }).waitFor();
    await page.locator('table:not([aria-busy])').waitFor();
    return page.locator('tbody th').allTextContents();
  }

  /** The text of a field's row in the fields table, once it is listed. */
  async function fieldRow(name: string): Promise<string> {
    const row = page.locator('tr', { has: page.getByRole('rowheader', { name, exact: true }) });
    await row.waitFor();
    return (await row.textContent()) ?? '';
  }

  async function createModelInPage(name: string, key: string) {
    await page.getByRole('button', { name: 'Create data model' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create data model' });
    await dialog.waitFor();
    expect(await focusedLabel(page)).toMatch(/^Name/);
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
    expect(await dialog.getByRole('textbox', { name: 'Key', exact: true }).inputValue()).toBe(key);
    await dialog.getByRole('button', { name: 'Create model' }).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/models/${key}`);
  }

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

  it('creates two models in the page, one with an EMAIL and a RELATION field', async () => {
    await page.goto(`${api.url}/`);
    await page.getByRole('button', { name: `Continue as ${E2E_ADMIN_EMAIL}` }).click();
    await page.getByRole('heading', { name: 'Create your organization' }).waitFor();
    await page.getByRole('textbox', { name: 'Organization name' }).fill('Records E2E');
    await page.getByRole('button', { name: 'Create organization' }).click();

    await page.getByRole('heading', { name: 'Data models', level: 1 }).waitFor();
    await page.getByText('No data models yet.').waitFor();
    await createModelInPage('Companies', 'companies');
    await page.getByRole('link', { name: '← Data models' }).click();
    await page.getByRole('heading', { name: 'Data models', level: 1 }).waitFor();
    await createModelInPage('Contacts', 'contacts');

    await page.getByRole('button', { name: 'Add field' }).click();
    let dialog = page.getByRole('dialog', { name: 'Add field' });
    await dialog.waitFor();
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Email');
    await dialog.getByRole('combobox', { name: 'Type' }).selectOption('EMAIL');
    await dialog.getByText('This type has no settings.').waitFor();
    await dialog.getByRole('button', { name: 'Add field' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await focusedLabel(page)).toBe('Add field');
    expect(await fieldRow('Email')).toContain('email');

    await page.getByRole('button', { name: 'Add field' }).click();
    dialog = page.getByRole('dialog', { name: 'Add field' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Company');
    await dialog.getByRole('combobox', { name: 'Type' }).selectOption('RELATION');
    // Refused in the page: a relation needs its target model.
    await dialog.getByRole('button', { name: 'Add field' }).click();
    await dialog.getByText('Choose the model it links to').waitFor();
    expect(await focusedLabel(page)).toBe('Links to records of');
    await dialog.getByRole('combobox', { name: 'Links to records of' }).selectOption('companies');
    await screenshotBothWidths(page, 'model-add-relation-field');
    await dialog.getByRole('button', { name: 'Add field' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await fieldRow('Company')).toMatch(/Relation.*→ companies/);
    await screenshotBothWidths(page, 'model');
    // The model's operations in the API reference: Redoc's anchors, which the reference page renders.
    expect(await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: /^API reference/ }).getAttribute('href')).toBe('/api/v1/docs');
    const createInReference = await page.getByRole('link', { name: 'create', exact: true }).getAttribute('href');
    expect(createInReference).toBe('/api/v1/docs#tag/Records/operation/createRecord');
    const reference = await browser.context.newPage();
    await reference.goto(`${api.url}${createInReference}`);
    await reference.locator('[id="tag/Records/operation/createRecord"]').waitFor();
    await reference.close();

    const fields = await rpc<{ items: Array<{ key: string; type: string; config: unknown }> }>('dataModels.fields.list', { model: 'contacts' });
    expect(fields.items.map((field) => [field.key, field.type, field.config])).toEqual([
      ['title', 'TEXT', { maxLength: 1000 }],
      ['email', 'EMAIL', {}],
      ['company', 'RELATION', { targetModel: 'companies', multiple: false }],
    ]);
    await page.getByRole('link', { name: '← Data models' }).click();
    await page.getByRole('row', { name: /Contacts/ }).waitFor();
    expect(await page.getByRole('link', { name: 'Records of Companies: 0', exact: true }).textContent()).toBe('0');
    await screenshotBothWidths(page, 'models');
  });

  it('creates a record in the grid and lists it', async () => {
    await page.getByRole('link', { name: 'Records of Companies' }).click();
    await page.getByRole('heading', { name: 'Companies records', level: 1 }).waitFor();
    await page.getByText('No records yet.').waitFor();
    await page.getByRole('button', { name: 'New record' }).click();
    const dialog = page.getByRole('dialog', { name: 'New Companies record' });
    await dialog.waitFor();
    expect(await focusedLabel(page)).toMatch(/^Title/);
    await dialog.getByRole('textbox', { name: 'Title' }).fill('Initech');
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /Initech/ }).waitFor();
    await screenshotBothWidths(page, 'records');
    // The models list counts it, as a link to the grid.
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Data models' }).click();
    expect(await page.getByRole('link', { name: 'Records of Companies: 1', exact: true }).textContent()).toBe('1');
  });

  it('refuses an invalid email in the browser without a request, then shows the server refusing a deleted relation target on its field', async () => {
    const [initech] = (await rpc<{ items: CreatedRecord[] }>('records.list', { model: 'companies' })).items;
    await page.goto(`${api.url}/models/contacts/records`);
    await page.getByRole('heading', { name: 'Contacts records', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New record' }).click();
    const dialog = page.getByRole('dialog', { name: 'New Contacts record' });
    await dialog.getByRole('textbox', { name: 'Title' }).fill('Ada Lovelace');
    await dialog.getByRole('textbox', { name: 'Email' }).fill('ada@');
    const company = dialog.getByRole('combobox', { name: 'Company' });
    await company.locator('option', { hasText: 'Initech' }).waitFor({ state: 'attached' });
    await company.selectOption({ label: 'Initech' });

    const callsBefore = rpcCalls.length;
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await dialog.getByText('Must be an email address such as name@example.com.').waitFor();
    expect(await focusedLabel(page)).toBe('Email');
    expect(await dialog.getByRole('textbox', { name: 'Email' }).getAttribute('aria-invalid')).toBe('true');
    // Refused in the browser: nothing at all went to the server.
    expect(rpcCalls.slice(callsBefore)).toEqual([]);
    await screenshotBothWidths(page, 'record-form-invalid-email');

    await dialog.getByRole('textbox', { name: 'Email' }).fill('ada@example.com');
    // The linked company is deleted behind the form's back: only the server can tell.
    await rpc('records.delete', { id: initech!.id });
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await dialog.getByText(`No record ${initech!.id} in model "companies"`).waitFor();
    expect(await company.getAttribute('aria-invalid')).toBe('true');
    expect(await focusedLabel(page)).toBe('Company');
    expect(rpcCalls.slice(callsBefore)).toEqual(['records.create']);
    expect(await dialog.getByRole('alert').textContent()).toMatch(/Request id for support: [0-9a-f-]{36}/);
    await screenshotBothWidths(page, 'record-form-server-refusal');

    await company.selectOption({ label: 'No record' });
    await dialog.getByRole('button', { name: 'Create record' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /Ada Lovelace/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('ada@example.com');

    // Editing sends only what changed.
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Ada Lovelace' });
    await edit.getByRole('textbox', { name: 'Email' }).fill('ada@lovelace.example');
    await edit.getByRole('button', { name: 'Save record' }).click();
    await edit.waitFor({ state: 'detached' });
    await row.getByText('ada@lovelace.example').waitFor();
    expect(await focusedLabel(page)).toBe('Edit Ada Lovelace');
  });

  it('sorts the records by a column and filters them with the builder', async () => {
    for (let index = 1; index <= 12; index++) {
      await rpc('records.create', { model: 'contacts', data: { title: `Contact ${String(index).padStart(2, '0')}`, email: `contact${index}@${index % 2 ? 'odd' : 'even'}.example` } });
    }
    await page.reload();
    await page.getByRole('heading', { name: 'Contacts records', level: 1 }).waitFor();
    // Sorted by title, ascending: Ada Lovelace, then Contact 01 to Contact 12.
    await page.getByRole('button', { name: /^Title/ }).click();
    await page.locator('th[aria-sort="ascending"]', { hasText: 'Title' }).waitFor();
    expect(await page.getByRole('button', { name: /^Title/ }).textContent()).toContain('sorted ascending');
    const sorted = ['Ada Lovelace', ...Array.from({ length: 12 }, (_, index) => `Contact ${String(index + 1).padStart(2, '0')}`)];
    expect(await listedTitles(sorted[0]!)).toEqual(sorted);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('title');

    // Email ends in even.example and the title is not Contact 02: 5 of the 6 even ones.
    await page.getByText('Filter', { exact: true }).click();
    await page.getByRole('button', { name: 'Add condition' }).click();
    const first = page.getByRole('group', { name: 'Condition 1' });
    await first.getByRole('combobox', { name: 'Field' }).selectOption('email');
    await first.getByRole('combobox', { name: 'Operator' }).selectOption('contains');
    await first.getByRole('textbox', { name: 'Value' }).fill('@even.');
    await page.getByRole('button', { name: 'Add condition' }).click();
    const second = page.getByRole('group', { name: 'Condition 2' });
    await second.getByRole('combobox', { name: 'Operator' }).selectOption('neq');
    await second.getByRole('textbox', { name: 'Value' }).fill('Contact 02');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText('Filter (applied)').waitFor();
    expect(await listedTitles('Contact 04')).toEqual(['Contact 04', 'Contact 06', 'Contact 08', 'Contact 10', 'Contact 12']);
    await screenshotBothWidths(page, 'records-filtered');

    // Applying closed the filter, as a menu closes once chosen from; it opens again on its draft.
    await first.waitFor({ state: 'hidden' });
    await page.getByText('Filter (applied)', { exact: true }).click();
    // An operand the rules refuse is refused in the page, at its condition.
    await first.getByRole('combobox', { name: 'Operator' }).selectOption('eq');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await first.getByText('Must be an email address such as name@example.com.').waitFor();
    // Escape closes the filter, as a menu closes.
    await page.keyboard.press('Escape');
    await first.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Delete Contact 04' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Contact 04?' });
    await confirm.waitFor();
    expect(await focusedLabel(page)).toBe('Cancel');
    await confirm.getByRole('button', { name: 'Delete record' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await listedTitles('Contact 06')).toEqual(['Contact 06', 'Contact 08', 'Contact 10', 'Contact 12']);
  });
});
