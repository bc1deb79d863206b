import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiKey, Me } from '../api/types';
import { App } from './App';

const ORGANIZATION = { id: '0190aaaa-0000-7000-8000-0000000000aa', name: 'Acme', slug: 'acme', roleKeys: ['owner'] };

function me(permissions: string[]): Me {
  return {
    user: { id: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', isPlatformAdmin: false, deletionScheduledFor: null },
    organizations: [ORGANIZATION],
    activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions },
  };
}

const KEY: ApiKey = {
  id: 'k-1',
  name: 'CRM sync',
  prefix: 'mrk_abcdefgh',
  fullAccess: false,
  permissions: ['records.read'],
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  status: 'active',
};

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** A fake api: answers per procedure, records what was called and with which headers. */
function fakeApi(answers: Record<string, (input: unknown) => Response>) {
  const calls: Array<{ procedure: string; input: unknown; headers: Record<string, string> }> = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    if (url === '/dev/session') return json(404, { error: { code: 'not_found', message: 'No route for GET /dev/session' } });
    const procedure = decodeURIComponent(url.replace('/rpc/', ''));
    const input = JSON.parse(String(init.body ?? '{}'));
    calls.push({ procedure, input, headers: init.headers as Record<string, string> });
    const answer = answers[procedure];
    return answer ? answer(input) : json(404, { error: { code: 'not_found', message: `Procedure ${procedure} not found` } });
  });
  return calls;
}

async function signInWithToken() {
  const user = userEvent.setup();
  render(<App />);
  await user.type(await screen.findByRole('textbox', { name: /Session token/ }), 'session-jwt');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return user;
}

describe('the console app', () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
    history.replaceState(null, '', '/');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('signs in with a session token and lands on the API keys page of the first organization', async () => {
    const calls = fakeApi({
      'me.get': () => json(200, me(['api-keys.manage', 'records.read'])),
      'apiKeys.list': () => json(200, { items: [KEY] }),
      'rbac.permissions.list': () => json(200, { items: [] }),
    });
    await signInWithToken();

    expect(await screen.findByRole('heading', { name: 'API keys', level: 1 })).toBeTruthy();
    expect(location.pathname).toBe('/api-keys');
    // The heading comes before the list: wait for the row itself.
    const row = (await screen.findByText('CRM sync')).closest('tr') as HTMLElement;
    expect(within(row).getByText('Limited: 1 permission')).toBeTruthy();
    expect(within(row).getByText('active')).toBeTruthy();
    // The session and the organization go with every organization-scoped call.
    const list = calls.find((call) => call.procedure === 'apiKeys.list');
    expect(list?.headers).toMatchObject({ Authorization: 'Bearer session-jwt', 'X-Organization-Id': ORGANIZATION.id });
    expect(sessionStorage.getItem('console.session')).toBe('session-jwt');
  });

  it('hides the service accounts page while its feature flag is off, although the permission is held', async () => {
    fakeApi({
      'me.get': () => json(200, me(['api-keys.manage', 'api-keys.manage-service-accounts'])),
      'apiKeys.list': () => json(200, { items: [] }),
      'rbac.permissions.list': () => json(200, { items: [] }),
      'featureFlags.enabled': () => json(200, { items: ['public-api.enabled'] }),
    });
    await signInWithToken();
    const nav = await screen.findByRole('navigation', { name: 'Pages' });
    await waitFor(() => expect(within(nav).getByRole('link', { name: 'API keys' })).toBeTruthy());
    expect(within(nav).queryByRole('link', { name: 'Service accounts' })).toBeNull();
  });

  it('shows the service accounts page when the flag is on and the permission held, not without the permission', async () => {
    fakeApi({
      'me.get': () => json(200, me(['api-keys.manage', 'api-keys.manage-service-accounts'])),
      'apiKeys.list': () => json(200, { items: [] }),
      'rbac.permissions.list': () => json(200, { items: [] }),
      'featureFlags.enabled': () => json(200, { items: ['public-api.service-accounts'] }),
    });
    await signInWithToken();
    const nav = await screen.findByRole('navigation', { name: 'Pages' });
    await waitFor(() => expect(within(nav).getByRole('link', { name: 'Service accounts' })).toBeTruthy());
    cleanup();

    sessionStorage.clear();
    fakeApi({
      'me.get': () => json(200, me(['api-keys.manage'])),
      'apiKeys.list': () => json(200, { items: [] }),
      'rbac.permissions.list': () => json(200, { items: [] }),
      'featureFlags.enabled': () => json(200, { items: ['public-api.service-accounts'] }),
    });
    await signInWithToken();
    const narrowerNav = await screen.findByRole('navigation', { name: 'Pages' });
    await waitFor(() => expect(within(narrowerNav).getByRole('link', { name: 'API keys' })).toBeTruthy());
    expect(within(narrowerNav).queryByRole('link', { name: 'Service accounts' })).toBeNull();
  });

  it('offers only the creator’s own permissions and refuses a limited key without one before sending anything', async () => {
    const calls = fakeApi({
      'me.get': () => json(200, me(['api-keys.manage', 'records.read'])),
      'apiKeys.list': () => json(200, { items: [] }),
      'rbac.permissions.list': () => json(200, { items: [{ key: 'records.read', description: 'Read records' }, { key: 'records.purge', description: 'Purge' }] }),
      'apiKeys.create': (input) => json(200, { ...KEY, ...(input as object), id: 'k-2', token: 'mrk_secret_token' }),
    });
    const user = await signInWithToken();
    await user.click(await screen.findByRole('button', { name: 'Create API key' }));
    const dialog = screen.getByRole('dialog', { name: 'Create API key' });
    const offered = within(dialog)
      .getAllByRole('checkbox')
      .map((box) => (box as HTMLInputElement).labels?.[0]?.querySelector('code')?.textContent);
    expect(offered).toEqual(['api-keys.manage', 'records.read']);

    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Reporting');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(within(dialog).getByText('Choose at least one permission for a limited key')).toBeTruthy();
    expect(calls.some((call) => call.procedure === 'apiKeys.create')).toBe(false);

    await user.click(within(dialog).getByRole('checkbox', { name: /records\.read/ }));
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    const shown = await screen.findByRole('dialog', { name: 'Your new API key' });
    expect(within(shown).getByRole('textbox', { name: /API key/ })).toHaveProperty('value', 'mrk_secret_token');
    expect(shown.textContent).toContain('you will not see it again');
    expect(calls.find((call) => call.procedure === 'apiKeys.create')?.input).toEqual({ name: 'Reporting', fullAccess: false, permissions: ['records.read'] });
  });

  it('maps the server’s refusal of a field onto that field', async () => {
    fakeApi({
      'me.get': () => json(200, me(['api-keys.manage', 'records.read'])),
      'apiKeys.list': () => json(200, { items: [] }),
      'rbac.permissions.list': () => json(200, { items: [] }),
      'apiKeys.create': () =>
        json(400, { error: { code: 'validation_failed', message: 'The request is invalid', details: [{ field: 'permissions', code: 'invalid_option', message: '"records.read" is not a permission you hold' }] } }),
    });
    const user = await signInWithToken();
    await user.click(await screen.findByRole('button', { name: 'Create API key' }));
    const dialog = screen.getByRole('dialog', { name: 'Create API key' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Reporting');
    await user.click(within(dialog).getByRole('checkbox', { name: /records\.read/ }));
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    const permissions = await within(dialog).findByRole('group', { name: 'Permissions' });
    expect(permissions.textContent).toContain('"records.read" is not a permission you hold');
    expect(within(dialog).getByRole('alert').textContent).toContain('Request id for support');
  });

  it('signs the person out, saying why, when the server stops accepting the session', async () => {
    fakeApi({
      'me.get': () => json(200, me(['api-keys.manage', 'records.read'])),
      'apiKeys.list': () => json(200, { items: [] }),
      'rbac.permissions.list': () => json(200, { items: [] }),
      'apiKeys.create': () => json(401, { error: { code: 'unauthorized', message: 'Session token has expired' } }),
    });
    const user = await signInWithToken();
    await user.click(await screen.findByRole('button', { name: 'Create API key' }));
    const dialog = screen.getByRole('dialog', { name: 'Create API key' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Reporting');
    await user.click(within(dialog).getByRole('checkbox', { name: /records\.read/ }));
    await user.click(screen.getByRole('button', { name: 'Create key' }));

    expect(await screen.findByRole('heading', { name: 'Sign in to the console' })).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe('You were signed out: Session token has expired');
    expect(sessionStorage.getItem('console.session')).toBeNull();
  });
});
