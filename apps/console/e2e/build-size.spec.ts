import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const DIST = resolve(__dirname, '..', 'dist');
const FIRST_PAGE_JS_LIMIT = 250 * 1024;

/** The production build global-setup made, as the api serves it. */
describe('the console build', () => {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');

  it('loads under 250 KB of gzipped JavaScript before the first page renders', () => {
    const entry = [...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g)].map(
      (match) => match[1] as string,
    );
    expect(entry.length).toBeGreaterThan(0);
    const gzipped = entry.reduce((sum, src) => sum + gzipSync(readFileSync(join(DIST, src))).length, 0);
    expect(gzipped).toBeLessThan(FIRST_PAGE_JS_LIMIT);
  });

  it('loads each page on demand, in a chunk of its own', () => {
    const assets = readdirSync(join(DIST, 'assets'));
    for (const page of ['SignInPage', 'ApiKeysPage', 'ServiceAccountsPage', 'ServiceAccountPage', 'ModelsPage', 'ModelPage', 'RecordsPage', 'WebhooksPage', 'WebhookDeliveriesPage', 'WebhookDeliveryPage', 'AutomationsPage', 'AutomationEditorPage', 'AutomationPage', 'BoardsPage', 'BoardPage', 'CalendarsPage', 'CalendarPage']) {
      expect(assets.filter((file) => file.startsWith(`${page}-`) && file.endsWith('.js'))).toHaveLength(1);
      expect(html).not.toContain(page);
    }
  });
});
