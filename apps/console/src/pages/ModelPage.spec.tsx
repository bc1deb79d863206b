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
  activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions: ['data-models.read', 'data-models.manage', 'records.read'] },
};
const MODEL = { key: 'deals', name: 'Deals', description: null, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z' };
const TITLE: DataField = { key: 'title', name: 'Title', type: 'TEXT', config: { maxLength: 1000 }, required: true, position: 0, indexed: false, indexStatus: null, indexError: null, archivedAt: null };

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function fakeApi(answers: Record<string, (input: Record<string, unknown>) => Response>) {
  const calls: Array<{ procedure: string; input: Record<string, unknown> }> = [];
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

async function openModelPage(answers: Record<string, (input: Record<string, unknown>) => Response>) {
  const calls = fakeApi({
    'me.get': () => json(200, ME),
    'dataModels.get': () => json(200, MODEL),
    'dataModels.list': () => json(200, { items: [MODEL, { ...MODEL, key: 'companies', name: 'Companies' }], nextCursor: null }),
    'dataModels.fields.list': () => json(200, { items: [TITLE], nextCursor: null }),
    ...answers,
  });
  sessionStorage.setItem('console.session', 'session-jwt');
  localStorage.setItem('console.organization', ORGANIZATION.id);
  history.replaceState(null, '', '/models/deals');
  const user = userEvent.setup();
  render(<App />);
  await screen.findByRole('heading', { name: 'Deals', level: 1 });
  await user.click(await screen.findByRole('button', { name: 'Add field' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add field' });
  return { calls, user, dialog };
}

// Many keystrokes through a whole app: room for a machine under load, not a measure of speed.
describe('adding a field', { timeout: 15_000 }, () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends a SELECT field with its options as dataModels.fields.create takes them', async () => {
    const { calls, user, dialog } = await openModelPage({ 'dataModels.fields.create': (input) => json(200, { ...TITLE, ...input, position: 1 }) });
    await user.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'Stage');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Type' }), 'SELECT');
    await user.type(within(dialog).getByRole('textbox', { name: 'Option 1 value' }), 'open');
    await user.type(within(dialog).getByRole('textbox', { name: 'Option 1 label' }), 'Open');
    await user.click(within(dialog).getByRole('button', { name: 'Add option' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Option 2 value' }), 'won');
    await user.click(within(dialog).getByRole('checkbox', { name: /^Indexed/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Add field' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((call) => call.procedure === 'dataModels.fields.create')?.input).toEqual({
      model: 'deals',
      key: 'stage',
      name: 'Stage',
      type: 'SELECT',
      config: { options: [{ value: 'open', label: 'Open' }, { value: 'won' }] },
      required: false,
      indexed: true,
    });
  });

  it('refuses duplicate options in the browser, at the option, without a request', async () => {
    const { calls, user, dialog } = await openModelPage({});
    await user.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'Stage');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Type' }), 'SELECT');
    await user.type(within(dialog).getByRole('textbox', { name: 'Option 1 value' }), 'open');
    await user.click(within(dialog).getByRole('button', { name: 'Add option' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Option 2 value' }), 'open');
    await user.click(within(dialog).getByRole('button', { name: 'Add field' }));

    await within(dialog).findByText('Option values must be unique.');
    const second = within(dialog).getByRole('textbox', { name: 'Option 2 value' });
    await waitFor(() => expect(document.activeElement).toBe(second));
    expect(calls.filter((call) => call.procedure === 'dataModels.fields.create')).toEqual([]);
  });

  it("shows the server's refusal of a relation target under the target's input", async () => {
    const { user, dialog } = await openModelPage({
      'dataModels.fields.create': () =>
        json(400, {
          error: {
            code: 'validation_failed',
            message: 'The request is invalid',
            details: [{ field: 'config.targetModel', code: 'not_found', message: 'No data model with key "companies"' }],
          },
        }),
    });
    await user.type(within(dialog).getByRole('textbox', { name: /^Name/ }), 'Company');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Type' }), 'RELATION');
    const target = within(dialog).getByRole('combobox', { name: 'Links to records of' });
    await user.selectOptions(target, 'companies');
    await user.click(within(dialog).getByRole('button', { name: 'Add field' }));

    await within(dialog).findByText('No data model with key "companies"');
    expect(target.getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(target));
  });
});
