import { chromium, type Browser as PlaywrightBrowser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_PATH, WIDTHS, screenshotBothWidths } from './support/chromium';
import { E2E_ADMIN_EMAIL, startConsoleApi, type ConsoleApi } from './support/console-api';
import { pageRpc, signInWithNewOrganization } from './support/page-session';

interface Member {
  userId: string;
  email: string;
  displayName: string;
  roleKeys: string[];
}

/**
 * The organization in the console over a real api: an invitation accepted in a second browser
 * context (another person), a role made from the catalog and given, the inbox read, the account
 * renamed, and the session shared by two tabs; each checked through /rpc.
 */
describe('members, roles, the inbox and the account in Chromium', () => {
  const INVITED = 'bob@console-e2e.example';
  let api: ConsoleApi;
  let browser: PlaywrightBrowser;
  let admin: BrowserContext;
  let page: Page;

  const rpc = <T>(procedure: string, input: unknown = {}) => pageRpc<T>(page, api.url, procedure, input);
  const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name });
  const newContext = async () => {
    const context = await browser.newContext({ viewport: { width: WIDTHS.wide, height: 900 } });
    context.setDefaultTimeout(15_000);
    return context;
  };
  const members = async () => (await rpc<{ members: Member[] }>('organizations.get')).members;

  beforeAll(async () => {
    api = await startConsoleApi();
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    admin = await newContext();
    page = await admin.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('signs in onto Data models, and a second tab of the browser is signed in from the first', async () => {
    await signInWithNewOrganization(page, api.url, 'Organization E2E');
    expect(new URL(page.url()).pathname).toBe('/models');

    const second = await admin.newPage();
    await second.goto(`${api.url}/members`);
    await second.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    expect(await second.getByRole('button', { name: /^Continue as/ }).count()).toBe(0);
    // Shared over a BroadcastChannel into the new tab's sessionStorage, never into localStorage.
    const stored = await second.evaluate<{ tab: string | null; shared: string[] }>(
      `({ tab: sessionStorage.getItem('console.session'), shared: Object.keys(localStorage) })`,
    );
    expect(stored.tab).toMatch(/^ey/);
    expect(stored.shared).not.toContain('console.session');
    await second.close();
  });

  it('invites by email with a role; the invited person joins from the link in another browser context', async () => {
    await nav('Members').click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page.getByText('No pending invitations').waitFor();
    await screenshotBothWidths(page, 'members');

    await page.getByRole('button', { name: 'Invite a member' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Invite a member' });
    await dialog.getByRole('textbox', { name: 'Email address' }).fill(INVITED);
    await dialog.getByRole('checkbox', { name: /^read-only/ }).check();
    await dialog.getByRole('checkbox', { name: /^member/ }).uncheck();
    await dialog.getByRole('button', { name: 'Invite' }).click();
    const ready = page.getByRole('dialog', { name: 'Invitation ready' });
    const link = await ready.getByRole('textbox', { name: 'Invitation link' }).inputValue();
    expect(link).toMatch(new RegExp(`^${api.url}/join#inv_[A-Za-z0-9_-]{43}$`));
    await ready.getByRole('button', { name: 'Done' }).click();

    const pending = await rpc<{ items: Array<{ email: string; roleKeys: string[] }> }>('organizations.listInvites');
    expect(pending.items).toEqual([expect.objectContaining({ email: INVITED, roleKeys: ['read-only'] })]);
    await page.getByRole('table', { name: 'Pending invitations' }).getByText(INVITED).waitFor();

    const other = await newContext();
    try {
      const bob = await other.newPage();
      await bob.goto(link);
      await bob.getByRole('textbox', { name: 'Or continue as any email' }).fill(INVITED);
      await bob.getByRole('button', { name: 'Continue', exact: true }).click();
      await bob.getByRole('heading', { name: 'Join an organization' }).waitFor();
      await bob.getByRole('button', { name: 'Join' }).click();
      await bob.getByRole('heading', { name: 'Data models', level: 1 }).waitFor();
      expect(await bob.getByLabel('Organization').locator('option:checked').textContent()).toBe('Organization E2E');
    } finally {
      await other.close();
    }

    expect((await members()).find((member) => member.email === INVITED)).toMatchObject({ roleKeys: ['read-only'] });
    expect((await rpc<{ items: unknown[] }>('organizations.listInvites')).items).toEqual([]);
  });

  it('creates a role from the permission catalog and gives it to the new member', async () => {
    await nav('Roles').click();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.getByText('No custom roles yet').waitFor();
    await screenshotBothWidths(page, 'roles');
    await page.getByRole('button', { name: 'New role' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New role' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Sales team');
    expect(await dialog.getByRole('textbox', { name: 'Key' }).inputValue()).toBe('sales-team');
    await dialog.getByRole('checkbox', { name: /^records\.read/ }).check();
    await dialog.getByRole('checkbox', { name: /^records\.update/ }).check();
    await dialog.getByRole('button', { name: 'Create role' }).click();
    await dialog.waitFor({ state: 'detached' });

    const roles = await rpc<{ items: Array<{ key: string; name: string; permissions: string[]; builtIn: boolean }> }>('rbac.roles.list');
    expect(roles.items.find((role) => role.key === 'sales-team')).toEqual(
      expect.objectContaining({ name: 'Sales team', permissions: ['records.read', 'records.update'], builtIn: false }),
    );

    await nav('Members').click();
    const bob = (await members()).find((member) => member.email === INVITED) as Member;
    await page.getByRole('button', { name: `Change roles of ${bob.displayName}` }).click();
    const rolesDialog = page.getByRole('dialog', { name: `Roles of ${bob.displayName}` });
    await rolesDialog.getByRole('checkbox', { name: /^sales-team/ }).check();
    await rolesDialog.getByRole('checkbox', { name: /^read-only/ }).uncheck();
    await rolesDialog.getByRole('button', { name: 'Save roles' }).click();
    await rolesDialog.waitFor({ state: 'detached' });
    expect((await members()).find((member) => member.email === INVITED)?.roleKeys).toEqual(['sales-team']);
  });

  it('shows the unread count on the bell, and marks the notification of the accepted invitation read', async () => {
    const bell = page.getByRole('link', { name: /^Notifications/ });
    // The bell reads the count when the console opens and when the inbox changes it: a reload shows the new one.
    await page.reload();
    await page.getByRole('link', { name: 'Notifications, 1 unread' }).waitFor();
    await bell.click();
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    const title = await page.locator('.inbox-item-unread .inbox-title').textContent();
    expect(title).toContain('joined Organization E2E');
    await screenshotBothWidths(page, 'inbox');
    await page.getByRole('button', { name: /^Mark “.*joined Organization E2E” as read$/ }).click();
    await page.getByText('Nothing unread.').waitFor();
    await page.getByRole('link', { name: 'Notifications', exact: true }).waitFor();
    const inbox = await rpc<{ unreadCount: number; items: Array<{ readAt: string | null }> }>('notifications.list');
    expect(inbox.unreadCount).toBe(0);
    expect(inbox.items[0]?.readAt).not.toBeNull();
  });

  it('renames the account, cancels a pending invitation and removes a member', async () => {
    await page.getByRole('link', { name: /\(your account\)$/ }).click();
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: 'Display name' }).fill('Ada Admin');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await rpc<{ user: { displayName: string; email: string } }>('me.get')).user).toMatchObject({ displayName: 'Ada Admin', email: E2E_ADMIN_EMAIL });
    await page.getByRole('link', { name: /\(your account\)$/ }).getByText('Ada Admin').waitFor();
    await screenshotBothWidths(page, 'account');

    await rpc('organizations.invite', { email: 'carol@console-e2e.example' });
    await nav('Members').click();
    await page.getByRole('button', { name: 'Cancel the invitation of carol@console-e2e.example' }).click();
    await page.getByRole('dialog', { name: 'Cancel invitation?' }).getByRole('button', { name: 'Cancel invitation' }).click();
    await page.getByText('No pending invitations').waitFor();
    expect((await rpc<{ items: unknown[] }>('organizations.listInvites')).items).toEqual([]);

    const bob = (await members()).find((member) => member.email === INVITED) as Member;
    await page.getByRole('button', { name: `Remove ${bob.displayName}` }).click();
    await page.getByRole('dialog', { name: 'Remove member?' }).getByRole('button', { name: 'Remove member' }).click();
    await page.getByRole('table', { name: 'Members' }).getByText(INVITED).waitFor({ state: 'detached' });
    expect((await members()).map((member) => member.email)).toEqual([E2E_ADMIN_EMAIL]);
  });

  it('signs every tab out when one signs out, and in when one signs in again', async () => {
    const second = await admin.newPage();
    await second.goto(`${api.url}/roles`);
    await second.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await second.getByText('You signed out in another tab.').waitFor();
    expect(await second.evaluate<string | null>(`sessionStorage.getItem('console.session')`)).toBeNull();

    // Signing in again in one tab signs in the other, still on the sign-in page.
    await second.getByRole('button', { name: `Continue as ${E2E_ADMIN_EMAIL}` }).click();
    await second.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await page.evaluate<string | null>(`sessionStorage.getItem('console.session')`)).toMatch(/^ey/);
    await second.close();
  });
});
