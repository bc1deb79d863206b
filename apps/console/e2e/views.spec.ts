import type { Page, Response } from 'playwright-core';
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
 * Kanban boards and calendars in the console over a real api process and database: moves by
 * pointer and keyboard, a date clicked and an event dragged, each checked over /api/v1.
 */
describe('the board and calendar pages in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  let apiKey = '';
  const records: Record<string, string> = {};

  const rpc = <T>(procedure: string, input: unknown) => pageRpc<T>(page, api.url, procedure, input);
  /** The record as an integration sees it: GET /api/v1/records/{id} with an API key. */
  const restRecord = async (id: string): Promise<ApiRecord> => {
    const response = await fetch(`${api.url}/api/v1/records/${id}`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as ApiRecord;
  };
  const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name });
  const column = (label: string) => page.locator('section.kanban-column', { has: page.getByRole('heading', { name: new RegExp(`^${label}\\b`), level: 2 }) });
  const card = (title: string) => page.getByRole('article', { name: title, exact: true });
  const titlesIn = (label: string) => column(label).locator('.kanban-card-title').allTextContents();
  const answered = (procedure: string) => page.waitForResponse((response: Response) => new URL(response.url()).pathname === `/rpc/${procedure}`);
  /** This month (of the browser's clock and zone), which the calendar opens on. */
  let year = 0;
  let month = 0;
  const day = (date: number) => `${year}-${String(month + 1).padStart(2, '0')}-${String(date).padStart(2, '0')}`;
  /** 09:00 of a day of this month in the browser's zone, as the API stores it (UTC). */
  const nineOClock = (date: number) => page.evaluate<string>(`new Date(${year}, ${month}, ${date}, 9).toISOString()`);
  const focusedCard = () => page.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('aria-label')");

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await launchChromium();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('signs in, and makes a model of tasks with a status and a due date, and a key for /api/v1', async () => {
    await signInWithNewOrganization(page, api.url, 'Views E2E');
    [year, month] = await page.evaluate<[number, number]>('[new Date().getFullYear(), new Date().getMonth()]');
    apiKey = (await rpc<{ token: string }>('apiKeys.create', { name: 'views e2e', fullAccess: true })).token;

    await rpc('dataModels.create', { key: 'tasks', name: 'Tasks' });
    await rpc('dataModels.fields.create', {
      model: 'tasks',
      key: 'status',
      name: 'Status',
      type: 'SELECT',
      config: {
        options: [
          { value: 'todo', label: 'To do' },
          { value: 'doing', label: 'Doing' },
          { value: 'done', label: 'Done' },
        ],
      },
    });
    await rpc('dataModels.fields.create', { model: 'tasks', key: 'due', name: 'Due', type: 'DATETIME' });
    for (const [title, status] of [
      ['Write the spec', 'todo'],
      ['Review the pull request', 'todo'],
      ['Ship it', 'doing'],
    ] as const) {
      records[title] = (await rpc<ApiRecord>('records.create', { model: 'tasks', data: { title, status } })).id;
    }
    expect((await restRecord(records['Ship it']!)).data.status).toBe('doing');
  });

  it('creates a board in the page; its columns are the options, its cards the records', async () => {
    await nav('Boards').click();
    await page.getByRole('heading', { name: 'Boards', level: 1 }).waitFor();
    await page.getByText('No boards yet.').waitFor();
    await page.getByRole('button', { name: 'Create board' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create board' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Task board');
    await dialog.getByRole('combobox', { name: 'Model' }).selectOption('tasks');
    await dialog.getByRole('combobox', { name: 'Column field' }).locator('option[value="status"]').waitFor({ state: 'attached' });
    await eventually('the only SELECT field is chosen', async () => {
      expect(await dialog.getByRole('combobox', { name: 'Column field' }).inputValue()).toBe('status');
    }, 5_000);
    await dialog.getByRole('button', { name: 'Create board' }).click();
    await page.getByRole('heading', { name: 'Task board', level: 1 }).waitFor();
    await card('Ship it').waitFor();
    expect(await page.locator('.kanban-column h2').allTextContents()).toEqual(['To do 2', 'Doing 1', 'Done 0']);
    expect(await titlesIn('To do')).toEqual(['Write the spec', 'Review the pull request']);
  });

  it('moves a card to another column by dragging it, as /api/v1 then tells', async () => {
    const moved = answered('kanban.cards.move');
    await card('Write the spec').dragTo(column('Done').locator('ul.kanban-cards'));
    expect((await moved).status()).toBe(200);
    expect(await titlesIn('Done')).toEqual(['Write the spec']);
    expect((await restRecord(records['Write the spec']!)).data.status).toBe('done');

    // Within a column: Ship it dropped on the upper half of Write the spec goes before it.
    const doneList = column('Done').locator('ul.kanban-cards');
    const box = (await doneList.boundingBox())!;
    const across = answered('kanban.cards.move');
    // Below the last card: last in the column.
    await card('Ship it').dragTo(doneList, { targetPosition: { x: 20, y: box.height - 6 } });
    expect((await across).status()).toBe(200);
    expect(await titlesIn('Done')).toEqual(['Write the spec', 'Ship it']);
    const within = answered('kanban.cards.move');
    await card('Ship it').dragTo(card('Write the spec'), { targetPosition: { x: 20, y: 4 } });
    expect((await within).status()).toBe(200);
    expect(await titlesIn('Done')).toEqual(['Ship it', 'Write the spec']);
    await page.reload();
    await card('Ship it').waitFor();
    expect(await titlesIn('Done')).toEqual(['Ship it', 'Write the spec']);
  });

  it('moves a card with the keyboard: Space picks it up, arrows move it, Space drops it', async () => {
    await card('Review the pull request').focus();
    await page.keyboard.press('Space');
    await page.getByRole('status').filter({ hasText: 'Review the pull request picked up, in To do, position 1 of 1' }).waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.getByRole('status').filter({ hasText: 'Review the pull request: Done, position 1 of 3' }).waitFor();
    expect(await focusedCard()).toBe('Review the pull request');
    await page.keyboard.press('ArrowDown');
    const moved = answered('kanban.cards.move');
    await page.keyboard.press('Space');
    const request = (await moved).request();
    expect(JSON.parse(request.postData() ?? '{}')).toEqual({
      boardId: expect.any(String),
      recordId: records['Review the pull request'],
      column: 'done',
      before: records['Write the spec'],
    });
    expect(await titlesIn('Done')).toEqual(['Ship it', 'Review the pull request', 'Write the spec']);
    expect((await restRecord(records['Review the pull request']!)).data.status).toBe('done');

    // Escape puts a picked-up card back where it was, and nothing is sent.
    await card('Ship it').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowLeft');
    expect(await titlesIn('Doing')).toEqual(['Ship it']);
    await page.keyboard.press('Escape');
    await page.getByRole('status').filter({ hasText: 'Move cancelled' }).waitFor();
    expect(await titlesIn('Done')).toEqual(['Ship it', 'Review the pull request', 'Write the spec']);
  });

  it('shows a refused move with its request id and puts the card back', async () => {
    // Deleted behind the page's back: the server refuses to move what it no longer has.
    await rpc('records.delete', { id: records['Ship it'] });
    await card('Ship it').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Space');
    const notice = page.getByRole('alert');
    await notice.getByText('Not found', { exact: true }).waitFor();
    expect(await notice.textContent()).toMatch(/Request id for support: [0-9a-f-]{36}/);
    expect(await titlesIn('Done')).toEqual(['Ship it', 'Review the pull request', 'Write the spec']);
    expect(await titlesIn('Doing')).toEqual([]);
    await page.reload();
    await card('Write the spec').waitFor();
  });

  it('assigns a member, filters by assignee, and adds and renames a column', async () => {
    await page.getByRole('button', { name: 'Assign people to Write the spec' }).click();
    const assign = page.getByRole('dialog', { name: 'Assign Write the spec' });
    await assign.getByRole('checkbox').first().check();
    await assign.getByRole('button', { name: 'Save assignees' }).click();
    await assign.waitFor({ state: 'detached' });
    const avatars = card('Write the spec').getByRole('list', { name: /^Assigned to / });
    await avatars.waitFor();
    expect(await avatars.locator('li').count()).toBe(1);

    await page.getByRole('searchbox', { name: 'Filter cards' }).fill('console-e2e');
    await page.getByText('1 of 2').waitFor();
    expect(await titlesIn('Done')).toEqual(['Write the spec']);
    await page.getByRole('searchbox', { name: 'Filter cards' }).fill('');

    await page.getByRole('button', { name: 'Add column' }).click();
    const add = page.getByRole('dialog', { name: 'Add column' });
    await add.getByRole('textbox', { name: 'Label' }).fill('In review');
    expect(await add.getByRole('textbox', { name: 'Value' }).inputValue()).toBe('in_review');
    // An id another column has is refused in the page, by field-validation's rule.
    await add.getByRole('textbox', { name: 'Value' }).fill('done');
    await add.getByRole('button', { name: 'Add column' }).click();
    await add.getByText('Option values must be unique.').waitFor();
    await add.getByRole('textbox', { name: 'Value' }).fill('in_review');
    await add.getByRole('button', { name: 'Add column' }).click();
    await add.waitFor({ state: 'detached' });
    await column('In review').waitFor();
    await page.getByRole('button', { name: 'Move column In review left' }).click();
    await page.getByRole('status').filter({ hasText: 'Columns in order: To do, Doing, In review, Done.' }).waitFor();
    expect(await page.locator('.kanban-column h2').allTextContents()).toEqual(['To do 0', 'Doing 0', 'In review 0', 'Done 2']);
    for (const [title, status] of [
      ['Draft the release notes', 'todo'],
      ['Update the changelog', 'todo'],
      ['Fix the login redirect', 'doing'],
      ['Check the translations', 'in_review'],
    ] as const) {
      await rpc('records.create', { model: 'tasks', data: { title, status } });
    }
    await page.reload();
    await card('Check the translations').waitFor();
    await screenshotBothWidths(page, 'board');

    await page.getByRole('link', { name: '← Boards' }).click();
    await page.getByRole('row', { name: /Task board/ }).waitFor();
    await screenshotBothWidths(page, 'boards');
  });

  it('creates a calendar in the page and a record on a clicked day, prefilled with that day', async () => {
    await nav('Calendars').click();
    await page.getByRole('heading', { name: 'Calendars', level: 1 }).waitFor();
    await page.getByText('No calendars yet.').waitFor();
    await page.getByRole('button', { name: 'Create calendar' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create calendar' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Due dates');
    await dialog.getByRole('combobox', { name: 'Model' }).selectOption('tasks');
    await dialog.getByRole('combobox', { name: 'Starts at' }).locator('option[value="due"]').waitFor({ state: 'attached' });
    await dialog.getByRole('button', { name: 'Create calendar' }).click();
    await page.getByRole('heading', { name: 'Due dates', level: 1 }).waitFor();

    await page.locator(`td[data-day="${day(15)}"]`).getByRole('button', { name: /^New record on / }).click();
    const form = page.getByRole('dialog', { name: 'New Tasks record' });
    await eventually('the clicked day is filled in', async () => {
      expect(await form.getByLabel('Due').inputValue()).toBe(`${day(15)}T09:00`);
    }, 5_000);
    await form.getByRole('textbox', { name: 'Title' }).fill('Plan the launch');
    const created = answered('records.create');
    await form.getByRole('button', { name: 'Create record' }).click();
    const record = (await (await created).json()) as ApiRecord;
    records['Plan the launch'] = record.id;
    await page.locator(`td[data-day="${day(15)}"]`).getByRole('button', { name: /^Plan the launch/ }).waitFor();
    expect((await restRecord(record.id)).data.due).toBe(await nineOClock(15));
  });

  it('reschedules an event by dragging it to another day, and by Move to date, as /api/v1 then tells', async () => {
    const updated = answered('records.update');
    await page.getByRole('button', { name: /^Plan the launch/ }).dragTo(page.locator(`td[data-day="${day(20)}"]`));
    expect((await updated).status()).toBe(200);
    await page.locator(`td[data-day="${day(20)}"]`).getByRole('button', { name: /^Plan the launch/ }).waitFor();
    expect((await restRecord(records['Plan the launch']!)).data.due).toBe(await nineOClock(20));

    // The keyboard's way: the event's menu, a date, Move.
    await page.getByRole('button', { name: /^Plan the launch/ }).focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('dialog', { name: 'Plan the launch' });
    await menu.getByLabel('Move to date').fill(day(22));
    const moved = answered('records.update');
    await menu.getByRole('button', { name: 'Move', exact: true }).click();
    expect((await moved).status()).toBe(200);
    await menu.waitFor({ state: 'detached' });
    await page.locator(`td[data-day="${day(22)}"]`).getByRole('button', { name: /^Plan the launch/ }).waitFor();
    expect((await restRecord(records['Plan the launch']!)).data.due).toBe(await nineOClock(22));

    for (const [title, date, hour] of [
      ['Team review', 8, 14],
      ['Release candidate', 22, 16],
      ['Customer call', 27, 11],
    ] as const) {
      await rpc('records.create', { model: 'tasks', data: { title, status: 'todo', due: await page.evaluate<string>(`new Date(${year}, ${month}, ${date}, ${hour}).toISOString()`) } });
    }
    await page.reload();
    await page.getByRole('button', { name: /^Customer call/ }).waitFor();
    await screenshotBothWidths(page, 'calendar');

    await page.getByRole('button', { name: 'Week', exact: true }).click();
    await page.getByRole('button', { name: 'Next week' }).waitFor();
    await screenshotBothWidths(page, 'calendar-week');
    await page.getByRole('link', { name: '← Calendars' }).click();
    await page.getByRole('row', { name: /Due dates/ }).waitFor();
    await screenshotBothWidths(page, 'calendars');
  });
});
