import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS_DIR, WIDTHS, launchChromium, type Browser } from './support/chromium';
import { startConsoleApi, type ConsoleApi } from './support/console-api';
import { pageRpc, signInWithNewOrganization } from './support/page-session';

/**
 * The console's look: light and dark (following the system preference), every page at 1280 and
 * 390 px in both. The screenshots go to e2e-artifacts, or to docs/images/console with
 * CONSOLE_DOC_SCREENSHOTS=1 (how the pictures in docs/console.md are made).
 */
const SCREENSHOT_DIR = process.env.CONSOLE_DOC_SCREENSHOTS === '1' ? resolve(__dirname, '..', '..', '..', 'docs', 'images', 'console') : join(ARTIFACTS_DIR, 'look');
const HEIGHTS = { [WIDTHS.wide]: 800, [WIDTHS.narrow]: 844 } as const;

/** Parses `rgb(r, g, b)` / `rgba(r, g, b, a)` into its channels. */
const channels = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
/** Relative luminance (WCAG) of an sRGB colour, 0 (black) to 1 (white). */
function luminance(color: string): number {
  const [r = 0, g = 0, b = 0] = channels(color).map((value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe('the console in light and dark, at both widths', () => {
  let api: ConsoleApi;
  let browser: Browser;
  let page: Page;
  const ids: Record<string, string> = {};
  const rpc = <T>(procedure: string, input: unknown = {}) => pageRpc<T>(page, api.url, procedure, input);

  /** The visible elements painted plain white: in dark mode each is a colour that ignores the tokens. */
  const whiteInDark = () =>
    page.evaluate<string[]>(`(() => {
      const found = [];
      for (const element of document.querySelectorAll('body *')) {
        const style = getComputedStyle(element);
        const box = element.getBoundingClientRect();
        if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue;
        if (style.backgroundColor === 'rgb(255, 255, 255)') found.push(element.tagName.toLowerCase() + (element.className ? '.' + String(element.className).split(' ').join('.') : ''));
      }
      return found;
    })()`);

  async function shoot(name: string): Promise<void> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [WIDTHS.wide, WIDTHS.narrow]) {
        await page.setViewportSize({ width, height: HEIGHTS[width] });
        const pageWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
        if (pageWidth > width) throw new Error(`${name} is ${pageWidth} px wide in a ${width} px window: it scrolls sideways`);
        if (scheme === 'dark') expect({ page: name, width, white: await whiteInDark() }).toEqual({ page: name, width, white: [] });
        await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}-${scheme}.png`) });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: WIDTHS.wide, height: 900 });
  }

  /** Opens `path` and waits for its level-1 heading. */
  async function open(path: string, heading: string | RegExp): Promise<void> {
    await page.goto(`${api.url}${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
  }

  beforeAll(async () => {
    // With the key that keeps endpoints' secrets, so the webhooks page shows an endpoint as it normally is.
    api = await startConsoleApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: '10ce'.repeat(16) });
    browser = await launchChromium();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('follows the system preference: the dark scheme paints dark surfaces with light text', async () => {
    await page.goto(`${api.url}/`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    const colours = async () =>
      page.evaluate<{ canvas: string; card: string; text: string }>(`(() => ({
        canvas: getComputedStyle(document.documentElement).backgroundColor,
        card: getComputedStyle(document.querySelector('.card')).backgroundColor,
        text: getComputedStyle(document.querySelector('h1')).color,
      }))()`);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await colours();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await colours();
    expect(dark.canvas).not.toBe(light.canvas);
    expect(dark.card).not.toBe(light.card);
    expect(luminance(light.canvas)).toBeGreaterThan(0.8);
    expect(luminance(dark.canvas)).toBeLessThan(0.05);
    expect(luminance(dark.text)).toBeGreaterThan(0.6);
    await page.emulateMedia({ colorScheme: 'light' });
    await shoot('sign-in');
  });

  it('shows every page right in both schemes and at both widths', async () => {
    await signInWithNewOrganization(page, api.url, 'Look and feel');
    await shoot('models-empty');

    await rpc('dataModels.create', { key: 'deals', name: 'Deals' });
    await rpc('dataModels.fields.create', {
      model: 'deals',
      key: 'stage',
      name: 'Stage',
      type: 'SELECT',
      config: { options: [{ value: 'lead', label: 'Lead', color: '#2563eb' }, { value: 'won', label: 'Won', color: '#16a34a' }] },
    });
    await rpc('dataModels.fields.create', { model: 'deals', key: 'amount', name: 'Amount', type: 'NUMBER', config: { min: 0 } });
    await rpc('dataModels.fields.create', { model: 'deals', key: 'closes', name: 'Closes', type: 'DATE' });
    const today = await page.evaluate<string>(`new Date().toISOString().slice(0, 10)`);
    for (const [title, stage, amount] of [
      ['Acme renewal', 'lead', 1200.5],
      ['Globex pilot', 'won', 18000],
      ['Initech upgrade', 'lead', 450],
    ] as const) {
      await rpc('records.create', { model: 'deals', data: { title, stage, amount, closes: today } });
    }
    ids.board = (await rpc<{ id: string }>('kanban.boards.create', { name: 'Pipeline', modelKey: 'deals', fieldKey: 'stage' })).id;
    ids.calendar = (await rpc<{ id: string }>('calendars.create', { name: 'Closing dates', modelKey: 'deals', startFieldKey: 'closes' })).id;
    await rpc('apiKeys.create', { name: 'CRM sync', fullAccess: true });
    ids.serviceAccount = (await rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Importer', roleKeys: ['member'] })).id;
    await rpc('webhooks.endpoints.create', { url: 'http://127.0.0.1:9/hook', subscriptions: ['data-models.deals.record-created'] });
    ids.automation = (
      await rpc<{ id: string }>('automations.create', {
        name: 'Tell the owners about new deals',
        trigger: { type: 'event', eventType: 'data-models.deals.record-created' },
        actions: [{ type: 'notify', role: 'owner', title: 'New deal', body: '{{event.payload.record.title}}' }],
      })
    ).id;
    await rpc('organizations.invite', { email: 'new.colleague@console-e2e.example', roleKeys: ['member'] });
    await rpc('records.create', { model: 'deals', data: { title: 'Hooli expansion', stage: 'lead', amount: 9900, closes: today } });

    const pages: Array<[string, string, string | RegExp]> = [
      ['models', '/models', 'Data models'],
      ['model', '/models/deals', 'Deals'],
      ['records', '/models/deals/records', /Deals/],
      ['api-keys', '/api-keys', 'API keys'],
      ['service-accounts', '/service-accounts', 'Service accounts'],
      ['service-account', `/service-accounts/${ids.serviceAccount}`, 'Importer'],
      ['webhooks', '/webhooks', 'Webhooks'],
      ['webhook-deliveries', '/webhooks/deliveries', /Delivery log/],
      ['automations', '/automations', 'Automations'],
      ['automation', `/automations/${ids.automation}`, 'Tell the owners about new deals'],
      ['automation-editor', `/automations/${ids.automation}/edit`, /Edit automation|Tell the owners/],
      ['boards', '/boards', 'Boards'],
      ['board', `/boards/${ids.board}`, 'Pipeline'],
      ['calendars', '/calendars', 'Calendars'],
      ['calendar', `/calendars/${ids.calendar}`, 'Closing dates'],
      ['members', '/members', 'Members'],
      ['roles', '/roles', 'Roles'],
      ['account', '/account', 'Your account'],
      ['inbox', '/inbox', 'Notifications'],
    ];
    for (const [name, path, heading] of pages) {
      await open(path, heading);
      await shoot(name);
    }

    // Dialogs sit in the top layer, over a backdrop: the same tokens paint them.
    await open('/members', 'Members');
    await page.getByRole('button', { name: 'Invite a member' }).first().click();
    await page.getByRole('dialog', { name: 'Invite a member' }).waitFor();
    await shoot('members-invite');
    await open('/roles', 'Roles');
    await page.getByRole('button', { name: 'New role' }).first().click();
    await page.getByRole('dialog', { name: 'New role' }).getByRole('checkbox', { name: /^records\.read/ }).waitFor();
    await shoot('roles-new');
  });
});
