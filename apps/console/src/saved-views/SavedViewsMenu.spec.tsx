import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../api/types';
import { App } from '../app/App';
import { defaultViewState } from '../records/view-state';
import type { GridView } from './saved-views';

const ORGANIZATION = { id: '0190aaaa-0000-7000-8000-0000000000aa', name: 'Acme', slug: 'acme', roleKeys: ['member'] };
const ME: Me = {
  user: { id: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', isPlatformAdmin: false, deletionScheduledFor: null },
  organizations: [ORGANIZATION],
  activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions: ['data-models.read', 'records.read'] },
};
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const view = (id: string, name: string, shared: boolean, state: Partial<GridView['state']>): GridView => ({
  id,
  modelKey: 'deals',
  name,
  shared,
  state: { ...defaultViewState(), ...state },
  createdBy: 'u-1',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
});
const VIEWS = [view('v1', 'Mine', false, { sort: 'title' }), view('v2', 'Team', true, { q: 'big' })];

function fakeApi() {
  const calls: Array<{ procedure: string; input: Record<string, unknown> }> = [];
  const answers: Record<string, (input: Record<string, unknown>) => Response> = {
    'me.get': () => json(200, ME),
    'dataModels.get': () => json(200, { key: 'deals', name: 'Deals', description: null, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z' }),
    'dataModels.fields.list': () =>
      json(200, { items: [{ key: 'title', name: 'Title', type: 'TEXT', config: {}, required: true, position: 0, indexed: false, indexStatus: null, indexError: null, archivedAt: null }], nextCursor: null }),
    'records.list': () => json(200, { items: [], nextCursor: null }),
    'views.grids.list': () => json(200, { items: VIEWS, nextCursor: null }),
    'views.grids.create': (input) => json(200, { ...view('v3', String(input.name), false, {}), state: input.state }),
  };
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    if (url === '/dev/session') return json(404, { error: { code: 'not_found', message: 'No route' } });
    const procedure = decodeURIComponent(url.replace('/rpc/', ''));
    const input = JSON.parse(String(init.body ?? '{}')) as Record<string, unknown>;
    calls.push({ procedure, input });
    const answer = answers[procedure];
    return answer ? answer(input) : json(404, { error: { code: 'not_found', message: `Procedure ${procedure} not found` } });
  });
  return calls;
}

describe('the saved views menu', { timeout: 15_000 }, () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
    sessionStorage.setItem('console.session', 'session-jwt');
    localStorage.setItem('console.organization', ORGANIZATION.id);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  async function openGrid(search = '') {
    const calls = fakeApi();
    history.replaceState(null, '', `/models/deals/records${search}`);
    const user = userEvent.setup();
    render(<App />);
    const menu = await screen.findByRole('group', { name: 'Saved views' });
    const picker = within(menu).getByLabelText('View');
    await within(picker).findByRole('option', { name: 'Team' });
    return { calls, user, menu, picker };
  }

  it("puts a picked view's state in the address, and shows a shared one without Delete to a member who may not change it", async () => {
    const { user, menu, picker } = await openGrid();
    expect(within(picker).getAllByRole('option').map((option) => option.textContent)).toEqual(['All records', 'Mine', 'Team']);
    await user.selectOptions(picker, 'v2');
    await waitFor(() => expect(location.search).toBe('?q=big'));
    expect(within(menu).queryByRole('button', { name: /Delete view/ })).toBeNull();
    await user.selectOptions(picker, 'v1');
    await waitFor(() => expect(location.search).toBe('?sort=title'));
    expect(within(menu).getByRole('button', { name: 'Delete view Mine' })).toBeTruthy();
  });

  it('saves the grid as it is as a personal view; sharing is offered only with data-models.manage', async () => {
    const { calls, user, menu } = await openGrid('?q=open&limit=50');
    await user.click(within(menu).getByRole('button', { name: 'Save view…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save view' });
    expect(within(dialog).getByRole('checkbox', { name: /Share with the organization/ })).toHaveProperty('disabled', true);
    await user.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'Open ones');
    await user.click(within(dialog).getByRole('button', { name: 'Save view' }));
    await waitFor(() => expect(calls.some((call) => call.procedure === 'views.grids.create')).toBe(true));
    expect(calls.find((call) => call.procedure === 'views.grids.create')?.input).toEqual({
      modelKey: 'deals',
      name: 'Open ones',
      shared: false,
      state: { q: 'open', sort: '-createdAt', limit: 50, hidden: [], order: [], widths: {} },
    });
  });
});
