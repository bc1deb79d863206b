import type { Page } from 'playwright-core';
import { launchChromium, screenshotBothWidths, type Browser } from './support/chromium';
import { startConsoleApi, type ConsoleApi } from './support/console-api';
import { eventually } from './support/eventually';
import { pageRpc, signInWithNewOrganization } from './support/page-session';

interface ApiRecord {
  id: string;
  title: string;
  data: Record<string, unknown>;
}

/**
 * The automation editor against the real api and cron-runner: an automation built with pickers
 * only (model, fields, typed values, a template, the event, a person by name) saves and runs, its
 * work checked over /api/v1; a value the browser refuses is never sent; and a field gone behind
 * the page's back is refused by the server at save, shown on its input.
 */
describe('the automation editor in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  let apiKey = '';

  const rpc = <T>(procedure: string, input: unknown) => pageRpc<T>(page, api.url, procedure, input);
  const rest = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${api.url}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as T;
  };
  /** Polled over /rpc: /api/v1's rate limit is for integrations, and is checked once the wait is over. */
  const followUps = async () => (await rpc<{ items: ApiRecord[] }>('records.list', { model: 'follow_ups' })).items;
  const automationCount = async () => (await rpc<{ items: unknown[] }>('automations.list', {})).items.length;
  const action = (number: number) => page.getByRole('group', { name: `Action ${number}` });
  const openEditor = async (name: string) => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Automations' }).click();
    await page.getByRole('link', { name: 'New automation' }).click();
    await page.getByRole('heading', { name: 'New automation', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: /^Name/ }).fill(name);
  };
  const options = [
    { value: 'open', label: 'Open' },
    { value: 'won', label: 'Won' },
  ];

  beforeAll(async () => {
    api = await startConsoleApi({}, { workers: true });
    browser = await launchChromium();
    page = browser.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('signs in with deals to watch and follow-ups to write, and a key for /api/v1', async () => {
    await signInWithNewOrganization(page, api.url, 'Automations E2E');
    apiKey = (await rpc<{ token: string }>('apiKeys.create', { name: 'automations e2e', fullAccess: true })).token;
    await rpc('dataModels.create', { key: 'deals', name: 'Deals' });
    await rpc('dataModels.create', { key: 'follow_ups', name: 'Follow-ups' });
    await rpc('dataModels.fields.create', { model: 'follow_ups', key: 'amount', name: 'Amount', type: 'NUMBER', config: { precision: 2 } });
    await rpc('dataModels.fields.create', { model: 'follow_ups', key: 'stage', name: 'Stage', type: 'SELECT', config: { options } });
    await rpc('dataModels.fields.create', { model: 'follow_ups', key: 'notes', name: 'Notes', type: 'TEXT' });
  });

  it('saves an automation built with pickers only, refusing a wrong value in the browser first, and it runs', async () => {
    await openEditor('Follow up each deal');
    await page.getByRole('combobox', { name: 'When' }).selectOption({ label: 'Records of Deals' });
    await page.getByRole('combobox', { name: /^Event type/ }).selectOption({ label: 'A record is created' });

    await action(1).getByRole('combobox', { name: /^Model/ }).selectOption({ label: 'Follow-ups' });
    // The model's required fields come first; a template is one switch away.
    await action(1).getByRole('checkbox', { name: 'Template for Title' }).check();
    // The watched model's values are offered as placeholders.
    expect(await action(1).locator('datalist option[value="{{event.payload.record.title}}"]').count()).toBe(1);
    await action(1).getByRole('combobox', { name: /^Title \(template\)/ }).fill('Follow up {{event.payload.record.title}}');
    await action(1).getByRole('combobox', { name: 'Add a field' }).selectOption({ label: 'Amount' });
    const amount = action(1).getByRole('textbox', { name: /^Amount/ });
    await amount.fill('lots');
    await action(1).getByRole('combobox', { name: 'Add a field' }).selectOption({ label: 'Stage' });
    await action(1).getByRole('combobox', { name: /^Stage/ }).selectOption({ label: 'Won' });

    await page.getByRole('button', { name: 'Add action' }).click();
    await action(2).getByRole('combobox', { name: 'Action 2 type' }).selectOption({ label: 'Notify people' });
    await action(2).getByRole('textbox', { name: /^Title/ }).fill('New deal: {{event.payload.record.title}}');
    const people = action(2).getByRole('group', { name: 'People to notify' });
    await people.getByRole('checkbox').first().check();

    // field-validation refuses the number in the browser: nothing is sent.
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByText('1 field needs attention').waitFor();
    expect(await amount.getAttribute('aria-invalid')).toBe('true');
    expect(await automationCount()).toBe(0);

    await amount.fill('1,200.50');
    await screenshotBothWidths(page, 'automation-editor-pickers');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshotBothWidths(page, 'automation-editor-pickers-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('heading', { name: 'Follow up each deal', level: 1 }).waitFor();
    await page.getByText('data-models.deals.record-created').waitFor();

    const deal = await rest<ApiRecord>('POST', '/models/deals/records', { data: { title: 'Acme' } });
    await eventually('the follow-up to be made', async () => expect(await followUps()).toHaveLength(1));
    const { items: made } = await rest<{ items: ApiRecord[] }>('GET', '/models/follow_ups/records');
    expect(made).toMatchObject([{ title: 'Follow up Acme', data: { amount: 1200.5, stage: 'won' } }]);
    expect(deal.title).toBe('Acme');
    const inbox = await rpc<{ items: Array<{ title: string }> }>('notifications.list', {});
    expect(inbox.items.map((item) => item.title)).toContain('New deal: Acme');

    // The page had no run when it opened: Refresh shows the one the deal started.
    await eventually('the run to be listed', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByRole('region', { name: 'Runs' }).getByRole('row', { name: /event\s*succeeded/ }).waitFor({ timeout: 1000 });
    });
    await screenshotBothWidths(page, 'automation-run');

    // Opened again, the values are typed as they were picked; saving unchanged keeps the actions.
    const saved = (await rpc<{ items: Array<{ id: string; actions: unknown[] }> }>('automations.list', {})).items[0];
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit Follow up each deal', level: 1 }).waitFor();
    expect(await action(1).getByRole('textbox', { name: /^Amount/ }).inputValue()).toBe('1200.5');
    expect(await action(1).getByRole('combobox', { name: /^Stage/ }).inputValue()).toBe('won');
    expect(await action(1).getByRole('checkbox', { name: 'Template for Title' }).isChecked()).toBe(true);
    expect(await action(2).getByRole('group', { name: 'People to notify' }).getByRole('checkbox').first().isChecked()).toBe(true);
    expect(await page.getByRole('combobox', { name: /^Event type/ }).inputValue()).toBe('data-models.deals.record-created');
    await page.getByRole('button', { name: 'Save automation' }).click();
    await page.getByRole('heading', { name: 'Follow up each deal', level: 1 }).waitFor();
    expect((await rpc<{ actions: unknown[] }>('automations.get', { id: saved?.id })).actions).toEqual(saved?.actions);
  });

  it('updates the record found by a field’s value, the value a template of the run’s input', async () => {
    await openEditor('Reopen by title');
    await page.getByRole('radio', { name: /^HTTP hook/ }).check();
    await action(1).getByRole('combobox', { name: 'Action 1 type' }).selectOption({ label: 'Update a record' });
    await action(1).getByRole('combobox', { name: /^Model/ }).selectOption({ label: 'Follow-ups' });
    await action(1).getByRole('radio', { name: 'A field’s value' }).check();
    await action(1).getByRole('combobox', { name: /^Field/ }).selectOption({ label: 'Title' });
    await action(1).getByRole('combobox', { name: /^Value/ }).fill('{{input.title}}');
    await action(1).getByRole('combobox', { name: 'Add a field' }).selectOption({ label: 'Stage' });
    await action(1).getByRole('combobox', { name: /^Stage/ }).selectOption({ label: 'Open' });
    await screenshotBothWidths(page, 'automation-editor-match');
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('dialog', { name: 'Your automation’s hook secret' }).getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'Reopen by title', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Run now' }).click();
    const run = page.getByRole('dialog', { name: 'Run “Reopen by title” now' });
    await run.getByRole('textbox', { name: /^Input/ }).fill('{ "title": "Follow up Acme" }');
    await run.getByRole('button', { name: 'Run now' }).click();
    await eventually('the follow-up to be reopened', async () => expect((await followUps()).map((item) => item.data.stage)).toEqual(['open']));
    const { items: reopened } = await rest<{ items: ApiRecord[] }>('GET', '/models/follow_ups/records');
    expect(reopened.map((item) => [item.title, item.data.stage])).toEqual([['Follow up Acme', 'open']]);
  });

  it('shows the server’s refusal of a field that went away after it was picked, on that field', async () => {
    await openEditor('Notes for every hook call');
    await page.getByRole('radio', { name: /^HTTP hook/ }).check();
    await action(1).getByRole('combobox', { name: /^Model/ }).selectOption({ label: 'Follow-ups' });
    await action(1).getByRole('textbox', { name: /^Title/ }).fill('From a hook');
    await action(1).getByRole('combobox', { name: 'Add a field' }).selectOption({ label: 'Notes' });
    await action(1).getByRole('textbox', { name: /^Notes/ }).fill('Called');

    // Someone archives the field while the editor is open.
    await rpc('dataModels.fields.archive', { model: 'follow_ups', key: 'notes' });
    await page.getByRole('button', { name: 'Create automation' }).click();
    const notes = action(1).getByRole('textbox', { name: /^Notes/ });
    await action(1).getByText('Unknown field "notes".').waitFor();
    expect(await notes.getAttribute('aria-invalid')).toBe('true');
    expect(await automationCount()).toBe(2);
    await screenshotBothWidths(page, 'automation-editor-refused');

    // Removing it saves.
    await action(1).getByRole('button', { name: 'Remove Notes' }).click();
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('dialog', { name: 'Your automation’s hook secret' }).getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'Notes for every hook call', level: 1 }).waitFor();
    expect(await automationCount()).toBe(3);
  });
});
