import type { Page } from 'playwright-core';
import { E2E_ADMIN_EMAIL } from './console-api';

/** Signs in as the e2e admin through the development sign-in and creates the organization the test works in. */
export async function signInWithNewOrganization(page: Page, apiUrl: string, organizationName: string): Promise<void> {
  await page.goto(`${apiUrl}/`);
  await page.getByRole('button', { name: `Continue as ${E2E_ADMIN_EMAIL}` }).click();
  await page.getByRole('textbox', { name: 'Organization name' }).fill(organizationName);
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.getByRole('heading', { name: 'Data models', level: 1 }).waitFor();
}

/**
 * A procedure called with the page's own session and organization, for what a test does behind the
 * page's back (setting up data, checking what the page did). Throws on any answer but 200.
 */
export async function pageRpc<T>(page: Page, apiUrl: string, procedure: string, input: unknown): Promise<T> {
  const { token, organizationId } = await page.evaluate<{ token: string | null; organizationId: string | null }>(
    `({ token: sessionStorage.getItem('console.session'), organizationId: localStorage.getItem('console.organization') })`,
  );
  const response = await fetch(`${apiUrl}/rpc/${procedure}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'X-Organization-Id': organizationId ?? '', 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as T;
  if (response.status !== 200) throw new Error(`${procedure} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** The label of the focused element (its <label>, aria-label or text). The script runs in the page, hence a string. */
export function focusedLabel(page: Page): Promise<string | null> {
  return page.evaluate<string | null>(`(() => {
    const element = document.activeElement;
    if (!element) return null;
    const labelled = element.id ? document.querySelector('label[for="' + element.id + '"]') : null;
    return ((labelled && labelled.textContent) || element.getAttribute('aria-label') || element.textContent || '').trim();
  })()`);
}
