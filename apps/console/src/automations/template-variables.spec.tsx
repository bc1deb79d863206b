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
  activeOrganization: { id: ORGANIZATION.id, roleIds: [], permissions: ['automations.manage', 'data-models.read', 'records.read'] },
};
const field = (key: string, name: string, type: DataField['type'], position: number): DataField => ({
  key,
  name,
  type,
  config: {},
  required: key === 'title',
  position,
  indexed: false,
  indexStatus: null,
  indexError: null,
  archivedAt: null,
});
const ORDER_FIELDS = [field('title', 'Title', 'TEXT', 0), field('amount', 'Amount', 'NUMBER', 1)];
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

async function openNewAutomation() {
  const answers: Record<string, () => Response> = {
    'me.get': () => json(200, ME),
    'dataModels.list': () => json(200, { items: [{ key: 'orders', name: 'Orders' }], nextCursor: null }),
    'dataModels.fields.list': () => json(200, { items: ORDER_FIELDS, nextCursor: null }),
    'rbac.roles.list': () => json(200, { items: [] }),
    'organizations.get': () => json(200, { ...ORGANIZATION, members: [] }),
    'webhooks.eventTypes.list': () => json(200, { items: [{ type: 'data-models.record-created' }] }),
    'notifications.list': () => json(200, { items: [], nextCursor: null, unreadCount: 0 }),
  };
  vi.stubGlobal('fetch', async (url: string) => {
    if (url === '/dev/session') return json(404, { error: { code: 'not_found', message: 'No route' } });
    const answer = answers[decodeURIComponent(url.replace('/rpc/', ''))];
    return answer ? answer() : json(404, { error: { code: 'not_found', message: 'No such procedure' } });
  });
  sessionStorage.setItem('console.session', 'session-jwt');
  localStorage.setItem('console.organization', ORGANIZATION.id);
  history.replaceState(null, '', '/automations/new');
  const user = userEvent.setup();
  render(<App />);
  await screen.findByRole('textbox', { name: /^Name/ });
  return user;
}

/** The trigger picker once its models have loaded (they arrive after the form shows). */
async function whenSelect(): Promise<HTMLElement> {
  const select = await screen.findByRole('combobox', { name: 'When' });
  await within(select).findByRole('option', { name: /Orders/ });
  return select;
}

const variables = () => screen.getByRole('complementary', { name: 'Variables' });
const listed = () => within(variables()).getAllByRole('button').map((button) => button.querySelector('code')?.textContent);

describe('the template variables of the automation editor', { timeout: 15_000 }, () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists what a record event offers beside the inputs, and inserts one where the caret was', async () => {
    const user = await openNewAutomation();
    await user.selectOptions(await whenSelect(), 'orders');
    await user.selectOptions(screen.getByRole('combobox', { name: /^Event type/ }), 'data-models.orders.record-created');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Action 1 type' }), 'notify');
    await waitFor(() => expect(listed()).toContain('{{event.payload.record.data.amount}}'));
    expect(listed()).toEqual([
      '{{event.payload.recordId}}',
      '{{event.payload.record.title}}',
      '{{event.payload.record.data.amount}}',
      '{{event.type}}',
      '{{event.occurredAt}}',
      '{{now}}',
    ]);

    const title = screen.getByRole('textbox', { name: /^Title/ }) as HTMLInputElement;
    await user.type(title, 'New order  is in');
    title.setSelectionRange('New order '.length, 'New order '.length);
    await user.click(within(variables()).getByRole('button', { name: /^Insert \{\{event\.payload\.record\.title\}\}/ }));
    expect(title.value).toBe('New order {{event.payload.record.title}} is in');

    const message = screen.getByRole('textbox', { name: /^Message/ }) as HTMLTextAreaElement;
    await user.type(message, 'Amount: ');
    await user.click(within(variables()).getByRole('button', { name: /^Insert \{\{event\.payload\.record\.data\.amount\}\}/ }));
    expect(message.value).toBe('Amount: {{event.payload.record.data.amount}}');
    expect(title.value).toBe('New order {{event.payload.record.title}} is in');
  });

  it('offers an HTTP hook’s body properties with the name to fill in selected, and no event variables', async () => {
    const user = await openNewAutomation();
    await user.click(screen.getByRole('radio', { name: /^HTTP hook/ }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Action 1 type' }), 'notify');
    expect(listed()).toEqual(['{{input.name}}', '{{now}}']);
    await user.click(within(variables()).getByRole('button', { name: /^Insert \{\{input\.name\}\}/ }));
    const title = screen.getByRole('textbox', { name: /^Title/ }) as HTMLInputElement;
    await waitFor(() => expect(document.activeElement).toBe(title));
    expect(title.value).toBe('{{input.name}}');
    expect(title.value.slice(title.selectionStart ?? 0, title.selectionEnd ?? 0)).toBe('name');
  });

  it('asks for a template value before it inserts into a record action', async () => {
    const user = await openNewAutomation();
    await user.click(screen.getByRole('radio', { name: /^Schedule/ }));
    await user.selectOptions(screen.getByRole('combobox', { name: /^Model/ }), 'orders');
    const scheduled = await within(variables()).findByRole('button', { name: /^Insert \{\{input\.scheduledFor\}\}/ });
    expect(scheduled).toHaveProperty('disabled', true);
    await user.click(await screen.findByRole('checkbox', { name: 'Template for Title' }));
    expect(scheduled).toHaveProperty('disabled', false);
    await user.click(scheduled);
    expect(screen.getByRole('combobox', { name: /^Title \(template\)/ })).toHaveProperty('value', '{{input.scheduledFor}}');
  });
});
