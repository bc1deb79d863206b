import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../api/types';
import { App } from '../app/App';
import type { DataField } from '../data-models/types';

const ORGANIZATION = { id: '0190aaaa-0000-7000-8000-0000000000aa', name: 'Acme', slug: 'acme', roleKeys: ['owner'] };
const ME: Me = {
  user: { id: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', isPlatformAdmin: false, deletionScheduledFor: null },
  organizations: [ORGANIZATION],
  activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions: ['data-models.read', 'records.read', 'records.create', 'records.update'] },
};

function field(key: string, name: string, type: DataField['type'], config: Record<string, unknown> = {}, position = 1, required = false): DataField {
  return { key, name, type, config, required, position, indexed: false, indexStatus: null, indexError: null, archivedAt: null };
}

const STAGES = { options: [{ value: 'lead', label: 'Lead' }, { value: 'won', label: 'Won' }, { value: 'lost', label: 'Lost' }, { value: 'won_back', label: 'Won back' }] };
const FIELDS = [
  field('title', 'Title', 'TEXT', { maxLength: 1000 }, 0, true),
  field('email', 'Email', 'EMAIL', {}, 1),
  field('notes', 'Notes', 'LONG_TEXT', {}, 2),
  field('stage', 'Stage', 'SELECT', STAGES, 3),
  field('tags', 'Tags', 'MULTI_SELECT', { options: [{ value: 'vip', label: 'VIP' }, { value: 'won-before', label: 'Won before' }] }, 4),
];

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

async function openGrid() {
  const calls: Array<{ procedure: string; input: Record<string, unknown> }> = [];
  const answers: Record<string, () => Response> = {
    'me.get': () => json(200, ME),
    'dataModels.get': () => json(200, { key: 'deals', name: 'Deals', description: null, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z' }),
    'dataModels.fields.list': () => json(200, { items: FIELDS, nextCursor: null }),
    'records.list': () =>
      json(200, {
        items: [{ id: '0190aaaa-0000-7000-8000-000000000001', model: 'deals', title: 'First', data: { title: 'First', stage: 'won' }, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z', createdBy: 'u-1', updatedBy: 'u-1' }],
        nextCursor: null,
      }),
    'views.grids.list': () => json(200, { items: [], nextCursor: null }),
    'notifications.list': () => json(200, { items: [], nextCursor: null, unreadCount: 0 }),
  };
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    if (url === '/dev/session') return json(404, { error: { code: 'not_found', message: 'No route' } });
    const procedure = decodeURIComponent(url.replace('/rpc/', ''));
    calls.push({ procedure, input: JSON.parse(String(init.body ?? '{}')) as Record<string, unknown> });
    const answer = answers[procedure];
    return answer ? answer() : json(404, { error: { code: 'not_found', message: `Procedure ${procedure} not found` } });
  });
  sessionStorage.setItem('console.session', 'session-jwt');
  localStorage.setItem('console.organization', ORGANIZATION.id);
  history.replaceState(null, '', '/models/deals/records');
  const user = userEvent.setup();
  render(<App />);
  await screen.findByRole('heading', { name: 'Deals records', level: 1 });
  await screen.findByRole('columnheader', { name: /Stage/ });
  const lists = () => calls.filter((call) => call.procedure === 'records.list' && call.input.model === 'deals').map((call) => call.input);
  return { user, lists };
}

describe('the records toolbar', { timeout: 15_000 }, () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  describe('quick search', () => {
    it('finds records whose SELECT or MULTI_SELECT shows the text, beside the searched text fields', async () => {
      const { user, lists } = await openGrid();
      await user.type(screen.getByRole('searchbox', { name: 'Search Deals' }), 'won{Enter}');
      await waitFor(() => expect(lists().at(-1)?.filter).toBeDefined());
      const input = lists().at(-1);
      // The text still reads the address as typed; the list asks for text or option matches.
      expect(new URLSearchParams(location.search).get('q')).toBe('won');
      expect(input?.q).toBeUndefined();
      expect(input?.filter).toEqual({
        or: [
          { field: 'title', op: 'contains', value: 'won' },
          { field: 'email', op: 'contains', value: 'won' },
          { field: 'stage', op: 'in', value: ['won', 'won_back'] },
          { field: 'tags', op: 'in', value: ['won-before'] },
        ],
      });
    });

    it('keeps the plain search when no option label holds the text', async () => {
      const { user, lists } = await openGrid();
      await user.type(screen.getByRole('searchbox', { name: 'Search Deals' }), 'acme{Enter}');
      await waitFor(() => expect(lists().at(-1)?.q).toBe('acme'));
      expect(lists().at(-1)?.filter).toBeUndefined();
    });
  });

  describe('the filter popover', () => {
    const filterButton = () => screen.getByText(/^Filter/, { selector: 'summary' });
    const popoverOpen = () => (filterButton().parentElement as HTMLDetailsElement).open;

    it('closes when the filter is applied, and the focus goes back to its button', async () => {
      const { user, lists } = await openGrid();
      await user.click(filterButton());
      expect(popoverOpen()).toBe(true);
      await user.click(screen.getByRole('button', { name: 'Add condition' }));
      const popover = screen.getByRole('group', { name: 'Condition 1' });
      await user.type(within(popover).getByRole('textbox'), 'First');
      await user.click(screen.getByRole('button', { name: 'Apply filter' }));
      await waitFor(() => expect(lists().at(-1)?.filter).toEqual({ field: 'title', op: 'eq', value: 'First' }));
      expect(popoverOpen()).toBe(false);
      expect(document.activeElement).toBe(filterButton());
    });

    it('stays open while the filter has errors', async () => {
      const { user } = await openGrid();
      await user.click(filterButton());
      await user.click(screen.getByRole('button', { name: 'Add condition' }));
      await user.click(screen.getByRole('button', { name: 'Apply filter' }));
      await screen.findByText(/./, { selector: '.filter-popover .field-error' });
      expect(popoverOpen()).toBe(true);
    });

    it('closes on Escape, wherever the focus is, and on a click outside', async () => {
      const { user } = await openGrid();
      await user.click(filterButton());
      expect(popoverOpen()).toBe(true);
      (document.activeElement as HTMLElement | null)?.blur();
      await user.keyboard('{Escape}');
      expect(popoverOpen()).toBe(false);
      expect(document.activeElement).toBe(filterButton());

      await user.click(filterButton());
      expect(popoverOpen()).toBe(true);
      await user.click(screen.getByRole('heading', { name: 'Deals records', level: 1 }));
      expect(popoverOpen()).toBe(false);
    });
  });
});
