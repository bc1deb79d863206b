import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`); playwright-core never downloads a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Screenshots and other artifacts of a run, kept out of git (.gitignore). */
export const ARTIFACTS_DIR = resolve(__dirname, '..', '..', 'e2e-artifacts');

export const WIDTHS = { wide: 1280, narrow: 390 } as const;

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * A fresh profile each time (its own --user-data-dir), headless, without a GPU, QUIC, first-run
 * screens or any call home, so a run depends on nothing but the api under test.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it with apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'console-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: WIDTHS.wide, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Everything answers within a second here; a step still waiting after 15 s has failed.
  page.setDefaultTimeout(15_000);
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The page at both widths, as `<name>-1280.png` and `<name>-390.png`, after checking that it fits
 * each width (nothing makes the page scroll sideways; wide tables scroll inside their own box).
 * The viewport is restored.
 */
export async function screenshotBothWidths(page: Page, name: string): Promise<void> {
  const dir = join(ARTIFACTS_DIR, 'screenshots');
  mkdirSync(dir, { recursive: true });
  const original = page.viewportSize() ?? { width: WIDTHS.wide, height: 900 };
  for (const width of [WIDTHS.wide, WIDTHS.narrow]) {
    await page.setViewportSize({ width, height: width === WIDTHS.narrow ? 844 : 900 });
    const pageWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    if (pageWidth > width) throw new Error(`${name} is ${pageWidth} px wide in a ${width} px window: it scrolls sideways`);
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(original);
}
