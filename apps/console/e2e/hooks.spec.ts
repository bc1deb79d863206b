import { createHmac } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { launchChromium, screenshotBothWidths, type Browser } from './support/chromium';
import { startConsoleApi, type ConsoleApi } from './support/console-api';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';
import { eventually } from './support/eventually';
import { focusedLabel, pageRpc, signInWithNewOrganization } from './support/page-session';

/**
 * The webhook and automation pages against the real api, webhook-worker and cron-runner: an
 * endpoint on a local receiver gets a delivery for a record created in the records grid, and an automation
 * made in the page runs when asked.
 */
describe('webhooks and automations in Chromium', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  let receiver: WebhookReceiver;
  /** The endpoint's first signing secret, as the page showed it. */
  let endpointSecret = '';

  const rpc = <T>(procedure: string, input: unknown) => pageRpc<T>(page, api.url, procedure, input);
  const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name });
  /** Clicks Refresh until `row` shows up. */
  const refreshUntilVisible = (row: Locator) =>
    eventually('the row to appear', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await row.waitFor({ timeout: 1000 });
    });

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    api = await startConsoleApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: 'e2e0'.repeat(16) }, { workers: true });
    browser = await launchChromium();
    page = browser.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await receiver?.close();
  });

  it('signs in, creates an organization and a model to watch', async () => {
    await signInWithNewOrganization(page, api.url, 'Hooks E2E');
    await rpc('dataModels.create', { key: 'orders', name: 'Orders' });
  });

  it('adds an endpoint subscribed to one model’s new records, its secret shown once', async () => {
    await nav('Webhooks').click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add endpoint' });
    await dialog.waitFor();
    expect(await focusedLabel(page)).toMatch(/^URL/);
    await dialog.getByRole('textbox', { name: /^URL/ }).fill(receiver.url);
    await dialog.getByRole('textbox', { name: /^Description/ }).fill('Orders to the e2e receiver');
    await dialog.getByText('One model’s records').click();
    await dialog.getByRole('checkbox', { name: /^data-models\.orders\.record-created/ }).check();
    // This receiver gets one record's deliveries one at a time, in commit order.
    await dialog.getByRole('radio', { name: /^One at a time, in order/ }).check();
    await screenshotBothWidths(page, 'webhooks-add');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();

    const shown = page.getByRole('dialog', { name: 'Your endpoint’s signing secret' });
    await shown.waitFor();
    expect(await shown.textContent()).toContain('you will not see it again');
    const secret = await shown.getByRole('textbox', { name: /^Signing secret of/ }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shown.getByRole('button', { name: 'Copy secret' }).waitFor();
    await screenshotBothWidths(page, 'webhooks-secret');
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await focusedLabel(page)).toBe('Add endpoint');

    const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[.*?/]/g, '\\$&')) });
    expect(await row.textContent()).toContain('data-models.orders.record-created');
    await row.getByText('enabled').waitFor();
    await screenshotBothWidths(page, 'webhooks');
    endpointSecret = secret;
  });

  it('shows the delivery of a record created in the records grid in the log, with its attempt, and redelivers it', async () => {
    await nav('Data models').click();
    await page.getByRole('link', { name: 'Records of Orders' }).click();
    await page.getByRole('heading', { name: 'Orders records', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New record' }).click();
    const form = page.getByRole('dialog', { name: 'New Orders record' });
    await form.getByRole('textbox', { name: 'Title' }).fill('Paid order');
    await form.getByRole('button', { name: 'Create record' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /Paid order/ }).waitFor();
    const [record] = (await rpc<{ items: Array<{ id: string; title: string }> }>('records.list', { model: 'orders' })).items;
    expect(record?.title).toBe('Paid order');

    await nav('Webhooks').click();
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await page.getByRole('heading', { name: 'Delivery log', level: 1 }).waitFor();
    const row = page.getByRole('row', { name: /data-models\.record-created/ });
    await refreshUntilVisible(row);
    // Pending rows are looked at again by the page itself until they settle.
    await row.getByText('succeeded').waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toContain('HTTP 200');
    // Delivered under its general type, beside the per-model name the endpoint subscribed to.
    expect(await row.textContent()).toContain('subscribed as data-models.orders.record-created');

    // What the receiver got is the record's event, signed with the secret the page showed once.
    expect(receiver.received).toHaveLength(1);
    const [first] = receiver.received;
    expect(JSON.parse(first?.body ?? '{}')).toMatchObject({ type: 'data-models.record-created', payload: { recordId: record?.id } });
    const expected = createHmac('sha256', endpointSecret).update(`${first?.headers['webhook-timestamp']}.${first?.body}`).digest('hex');
    expect(String(first?.headers['webhook-signature']).split(' ')).toContain(`v1=${expected}`);

    // Filters: a status that matches nothing, then back.
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No deliveries match these filters.').waitFor();
    expect(new URL(page.url()).search).toBe('?status=failed');
    await page.getByRole('button', { name: 'Clear' }).click();
    await row.waitFor();
    // The first row of filters (endpoint, status, event type, created from) stands level, whatever each control is.
    const tops = await page.evaluate<number[]>(
      `[...document.querySelectorAll('.filters input, .filters select')].slice(0, 4).map((control) => Math.round(control.getBoundingClientRect().top))`,
    );
    expect(new Set(tops).size).toBe(1);
    // A long endpoint URL may be cut short on screen; its tooltip holds it whole.
    expect(await row.locator('code[title]').getAttribute('title')).toBe(receiver.url);
    await screenshotBothWidths(page, 'webhook-deliveries');

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: /Delivery of data-models\.record-created/, level: 1 }).waitFor();
    expect(await page.locator('.facts').textContent()).toContain('Subscribed asdata-models.orders.record-created');
    const attempts = page.getByRole('region', { name: 'Attempts' });
    await attempts.getByRole('row', { name: /HTTP 200/ }).waitFor();
    expect(await attempts.textContent()).toMatch(/\d+ ms/);
    await attempts.getByText('Body, 28 bytes').click();
    await attempts.getByText('received by the e2e receiver').waitFor();
    await screenshotBothWidths(page, 'webhook-delivery');

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Queued again: the next attempt is due now.').waitFor();
    await attempts.getByRole('row').nth(2).waitFor({ timeout: 30_000 });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
  });

  it('rotates the secret with an overlap, pauses and resumes the endpoint, re-sends failures, and deletes it', async () => {
    await page.getByRole('link', { name: '← Delivery log' }).click();
    await page.getByRole('link', { name: '← Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();

    await page.getByRole('button', { name: `Rotate the secret of ${receiver.url}` }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate signing secret' });
    await rotate.getByRole('textbox', { name: 'Overlap (seconds)' }).fill('3600');
    await screenshotBothWidths(page, 'webhooks-rotate');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('dialog', { name: 'The new signing secret' });
    const rotated = await shown.getByRole('textbox', { name: /^New signing secret of/ }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(endpointSecret);
    expect(await shown.textContent()).toContain('deliveries carry both signatures');
    await shown.getByRole('button', { name: 'Done' }).click();
    await page.getByText(/Old secret signs too until/).waitFor();

    await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Disable endpoint?' });
    expect(await focusedLabel(page)).toBe('Cancel');
    await confirm.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('button', { name: `Enable ${receiver.url}` }).click();
    await page.getByRole('button', { name: `Disable ${receiver.url}` }).waitFor();

    await page.getByRole('button', { name: `Re-send failed deliveries to ${receiver.url}` }).click();
    const recover = page.getByRole('dialog', { name: 'Re-send failed deliveries' });
    // The dialog fills in a day ago once it has opened.
    await eventually('the window start is filled in', async () => {
      expect(await recover.getByLabel('Since').inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    }, 5_000);
    await recover.getByRole('button', { name: 'Re-send failed deliveries' }).click();
    await recover.getByText('No failed deliveries in that window: nothing was queued.').waitFor();
    await recover.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page.getByRole('dialog', { name: 'Delete endpoint?' }).getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No endpoints yet.').waitFor();
  });

  it('creates an automation with an HTTP hook in the editor, runs it now, and shows the run in its history', async () => {
    await nav('Automations').click();
    await page.getByRole('heading', { name: 'Automations', level: 1 }).waitFor();
    await page.getByText('No automations yet.').waitFor();
    await screenshotBothWidths(page, 'automations-empty');

    await page.getByRole('link', { name: 'New automation' }).click();
    await page.getByRole('heading', { name: 'New automation', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: /^Name/ }).fill('Order maker');
    // A cron expression the browser refuses before anything is sent.
    await page.getByRole('radio', { name: /^Schedule/ }).check();
    await page.getByRole('textbox', { name: /^Cron expression/ }).fill('0 9 * *');
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByText('Must have 5 fields: minute hour day-of-month month day-of-week').waitFor();
    await page.getByRole('textbox', { name: /^Cron expression/ }).fill('0 9 * * 1-5');
    await page.getByText(/^Next runs: /).waitFor();
    await screenshotBothWidths(page, 'automation-editor');

    await page.getByRole('radio', { name: /^HTTP hook/ }).check();
    await page.getByRole('combobox', { name: /^Model/ }).selectOption('orders');
    await page.getByRole('checkbox', { name: 'Template for Title' }).check();
    await page.getByRole('combobox', { name: /^Title \(template\)/ }).fill('Made for {{input.ref}}');
    await page.getByRole('button', { name: 'Create automation' }).click();

    const shown = page.getByRole('dialog', { name: 'Your automation’s hook secret' });
    await shown.waitFor();
    const hookSecret = await shown.getByRole('textbox', { name: /^Hook secret of/ }).inputValue();
    expect(hookSecret).toMatch(/^ahk_/);
    expect(await shown.textContent()).toContain('you will not see it again');
    await shown.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'Order maker', level: 1 }).waitFor();
    const automationId = new URL(page.url()).pathname.split('/').pop() as string;
    await page.getByText('No runs yet.').waitFor();

    await page.getByRole('button', { name: 'Run now' }).click();
    const run = page.getByRole('dialog', { name: 'Run “Order maker” now' });
    expect(await focusedLabel(page)).toMatch(/^Input/);
    await run.getByRole('textbox', { name: /^Input/ }).fill('{ "ref": "A-1" }');
    await run.getByRole('button', { name: 'Run now' }).click();
    await run.waitFor({ state: 'detached' });
    const runs = page.getByRole('region', { name: 'Runs' });
    // Queued runs are looked at again by the page until they end; the cron-runner takes them at once.
    await runs.getByRole('row', { name: /manual\s*succeeded/ }).waitFor({ timeout: 30_000 });
    const made = await rpc<{ items: Array<{ title: string }> }>('records.list', { model: 'orders' });
    expect(made.items.map((item) => item.title)).toContain('Made for A-1');

    // The hook, called as a program would with the secret shown once, starts a run too.
    const hook = await fetch(`${api.url}/hooks/automation/${automationId}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${hookSecret}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ref: 'B-2' }),
    });
    expect(hook.status).toBe(202);
    await refreshUntilVisible(runs.getByRole('row', { name: /http\s*succeeded/ }));
    await runs.getByRole('row', { name: /http\s*succeeded/ }).getByText('Actions and input').click();
    await runs.getByText(/"ref": "B-2"/).waitFor();
    await screenshotBothWidths(page, 'automation');

    await page.getByRole('link', { name: '← Automations' }).click();
    const listed = page.getByRole('row', { name: /Order maker/ });
    await listed.waitFor();
    expect(await listed.textContent()).toContain('HTTP hook');
    await screenshotBothWidths(page, 'automations');
  });
});
