import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Automation } from '../api/automation-types';
import type { Me } from '../api/types';
import type { WebhookEndpoint } from '../api/webhook-types';
import { App } from '../app/App';

const ORGANIZATION = { id: '0190aaaa-0000-7000-8000-0000000000aa', name: 'Acme', slug: 'acme', roleKeys: ['owner'] };
const EVENT_TYPES = ['data-models.record-created', 'notification.created', 'rbac.role-created', 'webhook.endpoint-disabled-after-failures'];

function me(permissions: string[]): Me {
  return {
    user: { id: 'u-1', kind: 'HUMAN', email: 'ada@example.com', displayName: 'Ada', isPlatformAdmin: false, deletionScheduledFor: null },
    organizations: [ORGANIZATION],
    activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions },
  };
}

const ENDPOINT: WebhookEndpoint = {
  id: '0190bbbb-0000-7000-8000-0000000000bb',
  organizationId: ORGANIZATION.id,
  url: 'https://erp.example.com/hooks',
  description: 'ERP',
  subscriptions: ['rbac.role-created'],
  signing: 'contract',
  ordering: 'none',
  principalId: 'u-1',
  state: 'enabled',
  disabledReason: null,
  disabledAt: null,
  consecutiveFailures: 0,
  signingSecretStored: true,
  previousSecretExpiresAt: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
};

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

const common = (permissions: string[]) => ({
  'me.get': () => json(200, me(permissions)),
  'apiKeys.list': () => json(200, { items: [] }),
  'rbac.permissions.list': () => json(200, { items: [] }),
  'rbac.roles.list': () => json(200, { items: [] }),
  'dataModels.list': () => json(200, { items: [{ key: 'orders', name: 'Orders' }], nextCursor: null }),
  'dataModels.fields.list': () =>
    json(200, { items: [{ key: 'title', name: 'Title', type: 'TEXT', config: {}, required: true, position: 0, indexed: false, indexStatus: null, indexError: null, archivedAt: null }] }),
  'organizations.get': () => json(200, { ...ORGANIZATION, members: [] }),
  'webhooks.eventTypes.list': () => json(200, { items: EVENT_TYPES.map((type) => ({ type })) }),
});

async function signInAt(path: string) {
  history.replaceState(null, '', path);
  const user = userEvent.setup();
  render(<App />);
  await user.type(await screen.findByRole('textbox', { name: /Session token/ }), 'session-jwt');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return user;
}

describe('the webhook and automation pages', () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('are listed only with their permissions', async () => {
    fakeApi({ ...common(['api-keys.manage', 'webhooks.manage']), 'webhooks.endpoints.list': () => json(200, { items: [] }) });
    await signInAt('/');
    const nav = await screen.findByRole('navigation', { name: 'Pages' });
    await waitFor(() => expect(within(nav).getByRole('link', { name: 'Webhooks' })).toBeTruthy());
    expect(within(nav).queryByRole('link', { name: 'Automations' })).toBeNull();
  });

  it('adds an endpoint, refusing a bad URL and no events before sending, and shows its secret once', async () => {
    const calls = fakeApi({
      ...common(['api-keys.manage', 'webhooks.manage', 'data-models.read']),
      'webhooks.endpoints.list': () => json(200, { items: [] }),
      'webhooks.endpoints.create': (input) => json(200, { endpoint: { ...ENDPOINT, ...input }, secret: 'whsec_shown_once' }),
    });
    const user = await signInAt('/webhooks');
    await user.click(await screen.findByRole('button', { name: 'Add endpoint' }));
    const dialog = screen.getByRole('dialog', { name: 'Add endpoint' });
    expect(document.activeElement).toBe(within(dialog).getByRole('textbox', { name: /URL/ }));
    await user.type(within(dialog).getByRole('textbox', { name: /URL/ }), 'ftp://erp.example.com/');
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    expect(within(dialog).getByText(/Must start with https:\/\//)).toBeTruthy();
    expect(within(dialog).getByText('Choose at least one event')).toBeTruthy();
    expect(calls.some((call) => call.procedure === 'webhooks.endpoints.create')).toBe(false);
    // webhook.* is never delivered: not offered.
    expect(within(dialog).getAllByRole('checkbox', { name: /^rbac\./ }).length).toBeGreaterThan(0);
    expect(within(dialog).queryAllByRole('checkbox', { name: /^webhook\./ })).toEqual([]);

    await user.clear(within(dialog).getByRole('textbox', { name: /URL/ }));
    await user.type(within(dialog).getByRole('textbox', { name: /URL/ }), 'https://erp.example.com/hooks');
    await user.click(within(dialog).getByText('One model’s records'));
    await user.click(within(dialog).getByRole('checkbox', { name: /^data-models\.orders\.record-created/ }));
    await user.selectOptions(within(dialog).getByRole('combobox', { name: /^Signature/ }), 'standard-webhooks');
    await user.click(within(dialog).getByRole('radio', { name: /^One at a time, in order/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));

    const shown = await screen.findByRole('dialog', { name: 'Your endpoint’s signing secret' });
    expect(within(shown).getByRole('textbox', { name: /Signing secret/ })).toHaveProperty('value', 'whsec_shown_once');
    expect(shown.textContent).toContain('you will not see it again');
    expect(shown.textContent).toContain('webhook-signature');
    expect(calls.find((call) => call.procedure === 'webhooks.endpoints.create')?.input).toEqual({
      url: 'https://erp.example.com/hooks',
      subscriptions: ['data-models.orders.record-created'],
      signing: 'standard-webhooks',
      ordering: 'per-record',
    });
  });

  it('edits an endpoint’s ordering, leaving its signature scheme to a rotation', async () => {
    const calls = fakeApi({
      ...common(['api-keys.manage', 'webhooks.manage', 'data-models.read']),
      'webhooks.endpoints.list': () => json(200, { items: [ENDPOINT] }),
      'webhooks.endpoints.update': (input) => json(200, { ...ENDPOINT, ...(input as object) }),
    });
    const user = await signInAt('/webhooks');
    await user.click(await screen.findByRole('button', { name: `Edit ${ENDPOINT.url}` }));
    const dialog = screen.getByRole('dialog', { name: 'Edit endpoint' });
    expect(within(dialog).queryByRole('combobox', { name: /^Signature/ })).toBeNull();
    expect(dialog.textContent).toContain('Rotating the secret can change how deliveries are signed');
    expect(within(dialog).getByRole('radio', { name: /^As soon as possible/ })).toHaveProperty('checked', true);
    await user.click(within(dialog).getByRole('radio', { name: /^One at a time, in order/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }));
    await waitFor(() => expect(calls.some((call) => call.procedure === 'webhooks.endpoints.update')).toBe(true));
    expect(calls.find((call) => call.procedure === 'webhooks.endpoints.update')?.input).toEqual({
      id: ENDPOINT.id,
      url: ENDPOINT.url,
      description: 'ERP',
      subscriptions: ENDPOINT.subscriptions,
      ordering: 'per-record',
    });
  });

  it('rotates a secret with the overlap asked for and shows the new one once', async () => {
    const calls = fakeApi({
      ...common(['api-keys.manage', 'webhooks.manage']),
      'webhooks.endpoints.list': () => json(200, { items: [ENDPOINT] }),
      'webhooks.endpoints.rotateSecret': () => json(200, { endpoint: { ...ENDPOINT, previousSecretExpiresAt: '2026-11-21T10:00:00.000Z' }, secret: 'whsec_new' }),
    });
    const user = await signInAt('/webhooks');
    await user.click(await screen.findByRole('button', { name: `Rotate the secret of ${ENDPOINT.url}` }));
    const overlap = screen.getByRole('textbox', { name: 'Overlap (seconds)' });
    await user.clear(overlap);
    await user.type(overlap, '999999');
    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    expect(screen.getByText('At most 604800 seconds (7 days)')).toBeTruthy();
    await user.clear(overlap);
    await user.type(overlap, '86400');
    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    const shown = await screen.findByRole('dialog', { name: 'The new signing secret' });
    expect(within(shown).getByRole('textbox', { name: /New signing secret/ })).toHaveProperty('value', 'whsec_new');
    expect(calls.find((call) => call.procedure === 'webhooks.endpoints.rotateSecret')?.input).toEqual({ id: ENDPOINT.id, overlapSeconds: 86400 });
  });

  it('switches the signature with a rotation, which then keeps no overlap', async () => {
    const calls = fakeApi({
      ...common(['api-keys.manage', 'webhooks.manage']),
      'webhooks.endpoints.list': () => json(200, { items: [ENDPOINT] }),
      'webhooks.endpoints.rotateSecret': () => json(200, { endpoint: { ...ENDPOINT, signing: 'standard-webhooks' }, secret: 'whsec_c3RhbmRhcmQ=' }),
    });
    const user = await signInAt('/webhooks');
    await user.click(await screen.findByRole('button', { name: `Rotate the secret of ${ENDPOINT.url}` }));
    await user.selectOptions(screen.getByRole('combobox', { name: /^Signature/ }), 'standard-webhooks');
    expect(screen.getByRole('textbox', { name: 'Overlap (seconds)' })).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    await screen.findByRole('dialog', { name: 'The new signing secret' });
    expect(calls.find((call) => call.procedure === 'webhooks.endpoints.rotateSecret')?.input).toEqual({ id: ENDPOINT.id, overlapSeconds: 0, signing: 'standard-webhooks' });
  });

  it('creates a scheduled automation once the cron expression reads, then shows it with its run history', async () => {
    const created: Automation = {
      id: '0190cccc-0000-7000-8000-0000000000cc',
      name: 'Weekday report',
      enabled: true,
      ownerId: 'u-1',
      trigger: { type: 'schedule', cron: '0 9 * * 1-5', timezone: 'UTC', nextRunAt: '2026-11-25T09:00:00.000Z' },
      actions: [{ type: 'create-record', model: 'orders', data: { title: 'Report {{now}}' } }],
      maxRunsPerMinute: 60,
      createdBy: 'u-1',
      createdAt: '2026-11-24T10:00:00.000Z',
      updatedAt: '2026-11-24T10:00:00.000Z',
    };
    const calls = fakeApi({
      ...common(['api-keys.manage', 'automations.manage', 'data-models.read']),
      'automations.list': () => json(200, { items: [], nextCursor: null }),
      'automations.create': () => json(200, created),
      'automations.get': () => json(200, created),
      'automations.runs.list': () => json(200, { items: [], nextCursor: null }),
    });
    const user = await signInAt('/automations/new');
    await user.type(await screen.findByRole('textbox', { name: /^Name/ }), 'Weekday report');
    await user.click(screen.getByRole('radio', { name: /^Schedule/ }));
    const cron = screen.getByRole('textbox', { name: /^Cron expression/ });
    await user.clear(cron);
    await user.type(cron, '0 9 * *');
    const zone = screen.getByRole('combobox', { name: /^Time zone/ });
    await user.clear(zone);
    await user.type(zone, 'UTC');
    await user.selectOptions(screen.getByRole('combobox', { name: /^Model/ }), 'orders');
    await user.click(await screen.findByRole('checkbox', { name: 'Template for Title' }));
    await user.click(screen.getByRole('combobox', { name: /^Title \(template\)/ }));
    await user.paste('Report {{now}}');
    await user.click(screen.getByRole('button', { name: 'Create automation' }));
    expect(screen.getByText('Must have 5 fields: minute hour day-of-month month day-of-week')).toBeTruthy();
    expect(calls.some((call) => call.procedure === 'automations.create')).toBe(false);

    await user.type(cron, ' 1-5');
    expect(await screen.findByText(/^Next runs: /)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Create automation' }));
    expect(await screen.findByRole('heading', { name: 'Weekday report', level: 1 })).toBeTruthy();
    expect(location.pathname).toBe(`/automations/${created.id}`);
    expect(calls.find((call) => call.procedure === 'automations.create')?.input).toEqual({
      name: 'Weekday report',
      enabled: true,
      maxRunsPerMinute: 60,
      trigger: { type: 'schedule', cron: '0 9 * * 1-5', timezone: 'UTC' },
      actions: [{ type: 'create-record', model: 'orders', data: { title: 'Report {{now}}' } }],
    });
    expect(await screen.findByText('No runs yet.')).toBeTruthy();
  });

  it('puts the server’s refusal of an action’s value on that action’s field, with the request id', async () => {
    fakeApi({
      ...common(['api-keys.manage', 'automations.manage', 'data-models.read']),
      'automations.list': () => json(200, { items: [], nextCursor: null }),
      'automations.create': () =>
        json(400, {
          error: {
            code: 'validation_failed',
            message: 'The request is invalid',
            details: [{ field: 'actions[0].data.title', code: 'invalid_format', message: '{{event.x}}: event is not available with this trigger' }],
          },
        }),
    });
    const user = await signInAt('/automations/new');
    await user.type(await screen.findByRole('textbox', { name: /^Name/ }), 'Hook');
    await user.click(screen.getByRole('radio', { name: /^HTTP hook/ }));
    await user.selectOptions(screen.getByRole('combobox', { name: /^Model/ }), 'orders');
    await user.click(await screen.findByRole('checkbox', { name: 'Template for Title' }));
    await user.click(screen.getByRole('combobox', { name: /^Title \(template\)/ }));
    await user.paste('{{event.x}}');
    await user.click(screen.getByRole('button', { name: 'Create automation' }));
    const title = await screen.findByRole('combobox', { name: /^Title \(template\)/ });
    await waitFor(() => expect(title.getAttribute('aria-invalid')).toBe('true'));
    expect(title.closest('.field')?.textContent).toContain('event is not available with this trigger');
    expect(screen.getByRole('alert').textContent).toContain('Request id for support');
  });
});
