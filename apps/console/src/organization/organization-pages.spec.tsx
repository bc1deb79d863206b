import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../api/types';
import { App } from '../app/App';

const ORGANIZATION = { id: '0190aaaa-0000-7000-8000-0000000000aa', name: 'Acme', slug: 'acme', roleKeys: ['owner'] };

const me = (permissions: string[]): Me => ({
  user: { id: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', isPlatformAdmin: false, deletionScheduledFor: null },
  organizations: [ORGANIZATION],
  activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions },
});

const ROLES = {
  items: [
    { id: 'r-1', key: 'owner', name: 'Owner', description: 'Everything', permissions: ['members.manage'], builtIn: true, memberCount: 1 },
    { id: 'r-2', key: 'member', name: 'Member', description: 'Reads and writes records', permissions: ['records.read'], builtIn: true, memberCount: 1 },
  ],
};
const MEMBERS = {
  ...ORGANIZATION,
  members: [
    { userId: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', roleKeys: ['owner'], joinedAt: '2026-11-20T10:00:00.000Z', disabled: false },
    { userId: 'u-2', kind: 'HUMAN', email: 'bob@example.com', displayName: 'Bob', roleKeys: ['member'], joinedAt: '2026-11-21T10:00:00.000Z', disabled: false },
    { userId: 'sa-1', kind: 'SERVICE', email: 'sync@sa.example', displayName: 'Sync', roleKeys: ['member'], joinedAt: '2026-11-21T10:00:00.000Z', disabled: false },
  ],
};

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function fakeApi(answers: Record<string, (input: unknown) => Response>) {
  const calls: Array<{ procedure: string; input: unknown }> = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    if (url === '/dev/session') return json(404, { error: { code: 'not_found', message: 'No route' } });
    const procedure = decodeURIComponent(url.replace('/rpc/', ''));
    const input = JSON.parse(String(init.body ?? '{}'));
    calls.push({ procedure, input });
    const answer = answers[procedure];
    return answer ? answer(input) : json(404, { error: { code: 'not_found', message: `Procedure ${procedure} not found` } });
  });
  return calls;
}

async function signIn() {
  const user = userEvent.setup();
  render(<App />);
  await user.type(await screen.findByRole('textbox', { name: /Session token/ }), 'session-jwt');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return user;
}

describe('the organization pages', () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
    history.replaceState(null, '', '/');
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lands on Data models after signing in, when the person may read them', async () => {
    fakeApi({
      'me.get': () => json(200, me(['api-keys.manage', 'data-models.read'])),
      'dataModels.list': () => json(200, { items: [] }),
      'notifications.list': () => json(200, { items: [], nextCursor: null, unreadCount: 3 }),
    });
    await signIn();
    expect(await screen.findByRole('heading', { name: 'Data models', level: 1 })).toBeTruthy();
    expect(location.pathname).toBe('/models');
    expect(await screen.findByRole('link', { name: 'Notifications, 3 unread' })).toBeTruthy();
  });

  it('lists the people (not service accounts) and offers only what the permissions allow', async () => {
    const calls = fakeApi({
      'me.get': () => json(200, me(['members.manage'])),
      'organizations.get': () => json(200, MEMBERS),
      'rbac.roles.list': () => json(200, ROLES),
      'organizations.listInvites': () => json(200, { items: [] }),
    });
    history.replaceState(null, '', '/members');
    await signIn();
    const table = await screen.findByRole('table', { name: 'Members' });
    expect(within(table).getByText('bob@example.com')).toBeTruthy();
    expect(within(table).queryByText('sync@sa.example')).toBeNull();
    // members.manage without rbac.manage: invite and remove, but no role changes; nobody removes themselves here.
    expect(screen.getByRole('button', { name: 'Remove Bob' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Remove Ada' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Change roles of Bob' })).toBeNull();
    expect(await screen.findByText('No pending invitations')).toBeTruthy();
    expect(calls.some((call) => call.procedure === 'organizations.listInvites')).toBe(true);
  });

  it('hides invitations and member changes from someone who may not manage members', async () => {
    const calls = fakeApi({
      'me.get': () => json(200, me(['records.read'])),
      'organizations.get': () => json(200, MEMBERS),
      'rbac.roles.list': () => json(200, ROLES),
    });
    history.replaceState(null, '', '/members');
    await signIn();
    await screen.findByRole('table', { name: 'Members' });
    expect(screen.queryByRole('button', { name: 'Invite a member' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove Bob' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Pending invitations' })).toBeNull();
    expect(calls.some((call) => call.procedure === 'organizations.listInvites')).toBe(false);
  });

  it('changes a member’s roles with one grant or revocation per changed role', async () => {
    const calls = fakeApi({
      'me.get': () => json(200, me(['members.manage', 'rbac.manage'])),
      'organizations.get': () => json(200, MEMBERS),
      'rbac.roles.list': () => json(200, ROLES),
      'organizations.listInvites': () => json(200, { items: [] }),
      'rbac.roles.assign': () => json(200, { userId: 'u-2', roleKeys: ['member', 'owner'] }),
      'rbac.roles.revoke': () => json(200, { userId: 'u-2', roleKeys: ['owner'] }),
    });
    history.replaceState(null, '', '/members');
    const user = await signIn();
    await user.click(await screen.findByRole('button', { name: 'Change roles of Bob' }));
    const dialog = await screen.findByRole('dialog', { name: 'Roles of Bob' });
    await user.click(within(dialog).getByRole('checkbox', { name: /^owner/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: /^member/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save roles' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.filter((call) => call.procedure.startsWith('rbac.roles.a') || call.procedure.startsWith('rbac.roles.r'))).toEqual([
      { procedure: 'rbac.roles.assign', input: { userId: 'u-2', roleKey: 'owner' } },
      { procedure: 'rbac.roles.revoke', input: { userId: 'u-2', roleKey: 'member' } },
    ]);
  });

  it('marks a notification read and lowers the unread count', async () => {
    const calls = fakeApi({
      'me.get': () => json(200, me([])),
      'notifications.list': () =>
        json(200, {
          items: [{ id: 'n-1', kind: 'rbac.role-assigned', title: 'You are now Admin', body: null, data: {}, createdAt: '2026-11-20T10:00:00.000Z', readAt: null }],
          nextCursor: null,
          unreadCount: 1,
        }),
      'notifications.markRead': () => json(200, { updated: 1 }),
    });
    history.replaceState(null, '', '/inbox');
    const user = await signIn();
    await user.click(await screen.findByRole('button', { name: 'Mark “You are now Admin” as read' }));
    expect(await screen.findByText('Nothing unread.')).toBeTruthy();
    expect(calls.find((call) => call.procedure === 'notifications.markRead')?.input).toEqual({ ids: ['n-1'] });
  });

  it('schedules the account’s deletion after confirming, and keeps it on request', async () => {
    let scheduled: string | null = null;
    const calls = fakeApi({
      'me.get': () => json(200, { ...me([]), user: { ...me([]).user, deletionScheduledFor: scheduled } }),
      'users.requestDeletion': () => {
        scheduled = '2026-12-27T10:00:00.000Z';
        return json(200, {});
      },
      'users.cancelDeletion': () => {
        scheduled = null;
        return json(200, {});
      },
    });
    history.replaceState(null, '', '/account');
    const user = await signIn();
    await user.click(await screen.findByRole('button', { name: 'Delete my account' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete my account' }));
    await user.click(await screen.findByRole('button', { name: 'Keep my account' }));
    expect(await screen.findByRole('button', { name: 'Delete my account' })).toBeTruthy();
    expect(calls.filter((call) => call.procedure.startsWith('users.')).map((call) => call.procedure)).toEqual(['users.requestDeletion', 'users.cancelDeletion']);
  });
});
