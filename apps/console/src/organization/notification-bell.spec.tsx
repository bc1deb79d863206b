import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../api/types';
import { App } from '../app/App';
import type { InboxNotification } from './types';
import { POLL_MS } from './use-unread-count';

const ORGANIZATION = { id: '0190aaaa-0000-7000-8000-0000000000aa', name: 'Acme', slug: 'acme', roleKeys: ['owner'] };
const ME: Me = {
  user: { id: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', isPlatformAdmin: false, deletionScheduledFor: null },
  organizations: [ORGANIZATION],
  activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions: [] },
};
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const notification = (id: string, title: string): InboxNotification => ({ id, kind: 'automations.notify', title, body: null, data: {}, createdAt: '2026-11-20T10:00:00.000Z', readAt: null });

/** An inbox on the server: what notifications.list answers follows it; `hold` keeps the bell's next answer back. */
function fakeInbox(first: InboxNotification[]) {
  const inbox = { items: first, held: undefined as undefined | { release: () => void } , holdNext: false };
  const page = (unreadOnly: boolean) => {
    const items = unreadOnly ? inbox.items.filter((item) => item.readAt === null) : inbox.items;
    return { items, nextCursor: null, unreadCount: inbox.items.filter((item) => item.readAt === null).length };
  };
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    if (url === '/dev/session') return json(404, { error: { code: 'not_found', message: 'No route' } });
    const procedure = decodeURIComponent(url.replace('/rpc/', ''));
    const input = JSON.parse(String(init.body ?? '{}')) as { unreadOnly?: boolean; limit?: number; ids?: string[] };
    if (procedure === 'me.get') return json(200, ME);
    if (procedure === 'notifications.markRead') {
      inbox.items = inbox.items.map((item) => (input.ids?.includes(item.id) ? { ...item, readAt: '2026-11-20T11:00:00.000Z' } : item));
      return json(200, { updated: input.ids?.length ?? 0 });
    }
    if (procedure === 'notifications.list') {
      // What the server knew when it was asked, answered whenever the test lets it.
      const answer = page(input.unreadOnly === true);
      if (inbox.holdNext && input.limit === 1) {
        inbox.holdNext = false;
        await new Promise<void>((resolve) => (inbox.held = { release: resolve }));
      }
      return json(200, answer);
    }
    return json(404, { error: { code: 'not_found', message: `Procedure ${procedure} not found` } });
  });
  return inbox;
}

function setVisibility(state: 'visible' | 'hidden') {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

async function openInbox() {
  sessionStorage.setItem('console.session', 'session-jwt');
  localStorage.setItem('console.organization', ORGANIZATION.id);
  history.replaceState(null, '', '/inbox');
  const user = userEvent.setup();
  render(<App />);
  await screen.findByRole('heading', { name: 'Notifications', level: 1 });
  return user;
}

const pass = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

describe('the notification bell', { timeout: 15_000 }, () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
    // Only the bell's polling clock is driven by the test; the rest of the page runs as usual.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    setVisibility('visible');
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('shows a new notification without a reload, in the bell and in an open inbox', async () => {
    const inbox = fakeInbox([notification('n-1', 'Deal won')]);
    await openInbox();
    expect(await screen.findByRole('link', { name: 'Notifications, 1 unread' })).toBeTruthy();

    inbox.items = [notification('n-2', 'Deal lost'), ...inbox.items];
    await pass(30_000);
    expect(await screen.findByRole('link', { name: 'Notifications, 2 unread' })).toBeTruthy();
    expect(await screen.findByText('Deal lost')).toBeTruthy();
  });

  it('does not ask while the tab is hidden, and asks at once when it is shown again', async () => {
    const inbox = fakeInbox([notification('n-1', 'Deal won')]);
    await openInbox();
    await screen.findByRole('link', { name: 'Notifications, 1 unread' });
    setVisibility('hidden');
    inbox.items = [notification('n-2', 'Deal lost'), ...inbox.items];
    await pass(POLL_MS * 3);
    expect(screen.getByRole('link', { name: 'Notifications, 1 unread' })).toBeTruthy();

    act(() => setVisibility('visible'));
    expect(await screen.findByRole('link', { name: 'Notifications, 2 unread' })).toBeTruthy();
  });

  it('keeps the count a mark-as-read gave, when a poll sent before it is answered after it', async () => {
    const inbox = fakeInbox([notification('n-1', 'Deal won'), notification('n-2', 'Deal lost')]);
    const user = await openInbox();
    await screen.findByRole('link', { name: 'Notifications, 2 unread' });
    inbox.holdNext = true;
    await pass(POLL_MS);
    expect(inbox.held).toBeDefined();

    await user.click(screen.getByRole('button', { name: 'Mark “Deal won” as read' }));
    expect(await screen.findByRole('link', { name: 'Notifications, 1 unread' })).toBeTruthy();
    await act(async () => inbox.held?.release());
    await pass(0);
    expect(screen.getByRole('link', { name: 'Notifications, 1 unread' })).toBeTruthy();
  });
});
