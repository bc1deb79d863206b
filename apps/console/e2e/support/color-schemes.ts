import type { Page } from 'playwright-core';
import { screenshotBothWidths } from './chromium';

/**
 * The page at both widths in the light scheme (`<name>-1280.png`, `<name>-390.png`) and in the
 * dark one (`<name>-dark-1280.png`, ...), each checked to fit its width; the scheme is restored.
 */
export async function screenshotBothSchemes(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshotBothWidths(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await screenshotBothWidths(page, `${name}-dark`);
  } finally {
    await page.emulateMedia({ colorScheme: null });
  }
}
