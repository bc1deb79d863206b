import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../api/types';
import { App } from '../app/App';
import type { DataField, DataRecord } from '../data-models/types';

const ORGANIZATION = { id: '0190aaaa-0000-7000-8000-0000000000aa', name: 'Acme', slug: 'acme', roleKeys: ['owner'] };
const ME: Me = {
  user: { id: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', isPlatformAdmin: false, deletionScheduledFor: null },
  organizations: [ORGANIZATION],
  activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions: ['data-models.read', 'records.read', 'records.create', 'records.update', 'records.delete'] },
};
const COMPANY_ID = '0190aaaa-0000-7000-8000-000000000c01';

function field(key: string, name: string, type: DataField['type'], config: Record<string, unknown> = {}, position = 1, required = false): DataField {
  return { key, name, type, config, required, position, indexed: false, indexStatus: null, indexError: null, archivedAt: null };
}

const FIELDS = [
  field('title', 'Title', 'TEXT', { maxLength: 1000 }, 0, true),
  field('email', 'Email', 'EMAIL', {}, 1),
  field('company', 'Company', 'RELATION', { targetModel: 'companies', multiple: false }, 2),
];

const record = (id: string, title: string, data: Record<string, unknown> = {}): DataRecord => ({
  id,
  model: 'contacts',
  title,
  data: { title, ...data },
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  createdBy: 'u-1',
  updatedBy: 'u-1',
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

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

const BASE_ANSWERS = {
  'me.get': () => json(200, ME),
  'dataModels.get': () => json(200, { key: 'contacts', name: 'Contacts', description: null, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z' }),
  'dataModels.fields.list': () => json(200, { items: FIELDS, nextCursor: null }),
};

async function openRecordsPage(answers: Record<string, (input: Record<string, unknown>) => Response>) {
  const calls = fakeApi({ ...BASE_ANSWERS, ...answers });
  sessionStorage.setItem('console.session', 'session-jwt');
  localStorage.setItem('console.organization', ORGANIZATION.id);
  history.replaceState(null, '', '/models/contacts/records');
  const user = userEvent.setup();
  render(<App />);
  await screen.findByRole('heading', { name: 'Contacts records', level: 1 });
  return { calls, user };
}

// Many keystrokes through a whole app: room for a machine under load, not a measure of speed.
describe('the records page', { timeout: 15_000 }, () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('refuses an invalid email in the browser: no request, the message under the field, the focus on it', async () => {
    const { calls, user } = await openRecordsPage({
      'records.list': (input) => json(200, { items: input.model === 'companies' ? [record(COMPANY_ID, 'Initech')] : [], nextCursor: null }),
    });
    await user.click(screen.getByRole('button', { name: 'New record' }));
    const dialog = await screen.findByRole('dialog', { name: 'New Contacts record' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Title/ }), 'Ada');
    const email = within(dialog).getByRole('textbox', { name: 'Email' });
    await user.type(email, 'ada@');
    await user.click(within(dialog).getByRole('button', { name: 'Create record' }));

    await within(dialog).findByText('Must be an email address such as name@example.com.');
    expect(email.getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(email));
    expect(calls.filter((call) => call.procedure === 'records.create')).toEqual([]);
  });

  it("shows the server's refusal of a deleted relation target under that field, with the request id", async () => {
    const { calls, user } = await openRecordsPage({
      'records.list': (input) => json(200, { items: input.model === 'companies' ? [record(COMPANY_ID, 'Initech')] : [], nextCursor: null }),
      'records.create': () =>
        json(
          400,
          {
            error: {
              code: 'validation_failed',
              message: 'The request is invalid',
              details: [{ field: 'company', code: 'not_found', message: `No record ${COMPANY_ID} in model "companies"` }],
            },
          },
          { 'X-Request-Id': 'req-relation' },
        ),
    });
    await user.click(screen.getByRole('button', { name: 'New record' }));
    const dialog = await screen.findByRole('dialog', { name: 'New Contacts record' });
    await user.type(within(dialog).getByRole('textbox', { name: /^Title/ }), 'Ada');
    const company = within(dialog).getByRole('combobox', { name: 'Company' });
    await within(company).findByRole('option', { name: 'Initech' });
    await user.selectOptions(company, COMPANY_ID);
    await user.click(within(dialog).getByRole('button', { name: 'Create record' }));

    await within(dialog).findByText(`No record ${COMPANY_ID} in model "companies"`);
    expect(company.getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(company));
    expect(within(dialog).getByRole('alert').textContent).toContain('req-relation');
    expect(calls.find((call) => call.procedure === 'records.create')?.input).toEqual({ model: 'contacts', data: { title: 'Ada', company: COMPANY_ID } });
  });

  it('keeps sort and search in the address, and lists with them', async () => {
    const { calls, user } = await openRecordsPage({
      'records.list': () => json(200, { items: [record('0190aaaa-0000-7000-8000-000000000001', 'First row')], nextCursor: null }),
    });
    await screen.findByRole('columnheader', { name: /Email/ });
    await user.click(screen.getByRole('button', { name: /^Email/ }));
    await waitFor(() => expect(calls.at(-1)?.input).toMatchObject({ model: 'contacts', sort: 'email' }));
    expect(location.search).toBe('?sort=email');
    expect(screen.getByRole('columnheader', { name: /Email/ }).getAttribute('aria-sort')).toBe('ascending');
    await user.click(screen.getByRole('button', { name: /^Email/ }));
    await waitFor(() => expect(calls.at(-1)?.input).toMatchObject({ sort: '-email' }));

    const search = screen.getByRole('searchbox', { name: 'Search Contacts' });
    await user.type(search, 'ada ');
    await waitFor(() => expect(calls.at(-1)?.input).toMatchObject({ model: 'contacts', q: 'ada', sort: '-email', expand: 'company' }));
    expect(new URLSearchParams(location.search).get('q')).toBe('ada');
    // The space being typed stays in the box although the search trims it.
    expect((search as HTMLInputElement).value).toBe('ada ');
    const lists = calls.filter((call) => call.procedure === 'records.list' && call.input.model === 'contacts');
    expect(lists.map((call) => [call.input.sort, call.input.q])).toEqual([
      ['-createdAt', undefined],
      ['email', undefined],
      ['-email', undefined],
      ['-email', 'ada'],
    ]);
  });
});
