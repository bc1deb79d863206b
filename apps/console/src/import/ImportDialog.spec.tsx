import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../api/types';
import { App } from '../app/App';
import { parseCsvText } from './csv-text';
import { DEAL_FIELDS, field } from './import-fixtures';

// happy-dom has no Web Worker: the file is parsed here by the same function the worker runs.
vi.mock('./parse-csv-file', () => ({ parseCsvFile: async (file: File) => parseCsvText(await file.text()) }));

const ORGANIZATION = { id: '0190aaaa-0000-7000-8000-0000000000aa', name: 'Acme', slug: 'acme', roleKeys: ['owner'] };
const ME: Me = {
  user: { id: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', isPlatformAdmin: false, deletionScheduledFor: null },
  organizations: [ORGANIZATION],
  activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions: ['data-models.read', 'records.read', 'records.create'] },
};
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function fakeApi(extra: Record<string, (input: Record<string, unknown>) => Response> = {}) {
  const calls: Array<{ procedure: string; input: Record<string, unknown> }> = [];
  const answers: Record<string, (input: Record<string, unknown>) => Response> = {
    'me.get': () => json(200, ME),
    'dataModels.get': () => json(200, { key: 'deals', name: 'Deals', description: null, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z' }),
    'dataModels.fields.list': () => json(200, { items: DEAL_FIELDS, nextCursor: null }),
    'records.list': () => json(200, { items: [], nextCursor: null }),
    'views.grids.list': () => json(200, { items: [], nextCursor: null }),
    'records.createMany': (input) => json(200, { items: (input.records as unknown[]).map((_, index) => ({ id: `r${index}` })) }),
    ...extra,
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

describe('the CSV import dialog', { timeout: 15_000 }, () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends nothing while a row is refused, then only the rows that passed once the bad one is left out', async () => {
    const calls = fakeApi();
    sessionStorage.setItem('console.session', 'session-jwt');
    localStorage.setItem('console.organization', ORGANIZATION.id);
    history.replaceState(null, '', '/models/deals/records');
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole('button', { name: 'Import CSV' }));
    const dialog = await screen.findByRole('dialog', { name: 'Import CSV into Deals' });
    const csv = 'Title,Amount,Stage\nFirst,"1,200.50",Lead\nSecond,lots,Closed won\nThird,3,won\n';
    await user.upload(within(dialog).getByLabelText('CSV file'), new File([csv], 'deals.csv', { type: 'text/csv' }));
    await user.click(await within(dialog).findByRole('button', { name: 'Check 3 rows' }));

    await within(dialog).findByText(/2 rows are ready to import\. 1 row has errors/);
    expect(within(dialog).getByRole('textbox', { name: 'Row 3, Amount' })).toHaveProperty('value', 'lots');
    expect(calls.filter((call) => call.procedure === 'records.createMany')).toEqual([]);

    await user.click(within(dialog).getByRole('button', { name: 'Leave out 1 row and import 2' }));
    await within(dialog).findByText('Imported 2 of 2 records.');
    expect(calls.filter((call) => call.procedure === 'records.createMany').map((call) => call.input)).toEqual([
      {
        model: 'deals',
        records: [{ data: { title: 'First', amount: 1200.5, stage: 'lead' } }, { data: { title: 'Third', amount: 3, stage: 'won' } }],
      },
    ]);
  });

  it('links a relation by the related record’s title, and lists a title no record bears as that row’s error', async () => {
    const acme = '0190aaaa-0000-7000-8000-00000000ac01';
    const company = field('company', 'RELATION', { name: 'Company', position: 8, config: { targetModel: 'companies' } });
    const calls = fakeApi({
      'dataModels.fields.list': () => json(200, { items: [...DEAL_FIELDS, company], nextCursor: null }),
      'records.list': (input) =>
        json(200, { items: input.model === 'companies' && input.filter ? [{ id: acme, model: 'companies', title: 'Acme', data: { title: 'Acme' } }] : [], nextCursor: null }),
    });
    sessionStorage.setItem('console.session', 'session-jwt');
    localStorage.setItem('console.organization', ORGANIZATION.id);
    history.replaceState(null, '', '/models/deals/records');
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole('button', { name: 'Import CSV' }));
    const dialog = await screen.findByRole('dialog', { name: 'Import CSV into Deals' });
    const csv = 'Title,Company\nFirst,acme\nSecond,Initech\nThird,ACME\n';
    await user.upload(within(dialog).getByLabelText('CSV file'), new File([csv], 'deals.csv', { type: 'text/csv' }));
    expect(within(dialog).getByText(/A relation column takes the related record’s id or its exact title/)).toBeTruthy();
    await user.click(await within(dialog).findByRole('button', { name: 'Check 3 rows' }));

    await within(dialog).findByText(/2 rows are ready to import\. 1 row has errors/);
    expect(within(dialog).getByRole('textbox', { name: 'Row 3, Company' })).toHaveProperty('value', 'Initech');
    expect(within(dialog).getAllByText('No companies record you can see is titled “Initech”').length).toBeGreaterThan(0);
    // Both titles in one request, not one per row.
    expect(calls.filter((call) => call.procedure === 'records.list' && call.input.model === 'companies').map((call) => call.input.filter)).toEqual([
      { or: [{ field: 'title', op: 'startsWith', value: 'acme' }, { field: 'title', op: 'startsWith', value: 'Initech' }] },
    ]);

    await user.click(within(dialog).getByRole('button', { name: 'Leave out 1 row and import 2' }));
    await within(dialog).findByText('Imported 2 of 2 records.');
    expect(calls.find((call) => call.procedure === 'records.createMany')?.input.records).toEqual([
      { data: { title: 'First', company: acme } },
      { data: { title: 'Third', company: acme } },
    ]);
  });
});
