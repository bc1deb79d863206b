import type { EventEnvelope } from '@mrp/platform';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, type OrganizationWithKey } from '../support/public-api-fixtures';

interface AutomationView {
  id: string;
  name: string;
  enabled: boolean;
  ownerId: string;
  trigger: Record<string, unknown>;
  actions: unknown[];
  maxRunsPerMinute: number;
  secret?: string;
}

const createTask = (modelKey: string) => [{ type: 'create-record', model: modelKey, data: { title: 'From {{input.source}}' } }];

describe('automation definitions', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  const events: EventEnvelope[] = [];

  beforeAll(async () => {
    api = await startTestApi({ FEATURE_FLAGS: 'public-api.service-accounts=true' });
    org = await createOrganizationWithKey(api);
    api.runtime.bus.subscribe('automation.*', (event) => void events.push(event));
  });
  afterAll(async () => {
    await api.close();
  });

  const call = (name: string, input: unknown, token = org.owner.session) =>
    api.request(`/rpc/${name}`, { method: 'POST', json: input, token, organizationId: org.organizationId });

  it('creates, lists, changes and deletes automations, with an event for each change', async () => {
    const scheduled = await org.rpc<AutomationView>('automations.create', {
      name: '  Morning digest ',
      trigger: { type: 'schedule', cron: '0  9 * * 1-5', timezone: 'Europe/Paris' },
      actions: createTask(org.modelKey),
    });
    expect(scheduled).toMatchObject({
      name: 'Morning digest',
      enabled: true,
      ownerId: org.owner.user.sub,
      trigger: { type: 'schedule', cron: '0 9 * * 1-5', timezone: 'Europe/Paris' },
      maxRunsPerMinute: 60,
    });
    expect(new Date(scheduled.trigger.nextRunAt as string).getTime()).toBeGreaterThan(Date.now());
    expect(scheduled.secret).toBeUndefined();

    const onEvent = await org.rpc<AutomationView>('automations.create', {
      name: 'On task',
      trigger: { type: 'event', eventType: 'data-models.*' },
      actions: createTask(org.modelKey),
    });
    expect(onEvent.trigger).toEqual({ type: 'event', eventType: 'data-models.*', includeOwnRuns: false });

    const page = await org.rpc<{ items: AutomationView[]; nextCursor: string | null }>('automations.list', { limit: 1 });
    expect(page.items.map((item) => item.id)).toEqual([scheduled.id]);
    const next = await org.rpc<{ items: AutomationView[]; nextCursor: string | null }>('automations.list', { cursor: page.nextCursor });
    expect(next).toEqual({ items: [onEvent], nextCursor: null });

    // Becoming an http automation gives it a secret, shown once.
    const changed = await org.rpc<AutomationView>('automations.update', { id: onEvent.id, trigger: { type: 'http' }, name: 'Inbound' });
    expect(changed.secret).toMatch(/^ahk_/);
    expect(changed.trigger).toEqual({ type: 'http', secretPrefix: changed.secret!.slice(0, 10) });
    const disabled = await org.rpc<AutomationView>('automations.update', { id: scheduled.id, enabled: false });
    expect(disabled.trigger.nextRunAt).toBeNull();

    await org.rpc('automations.delete', { id: onEvent.id });
    await expectError(await call('automations.get', { id: onEvent.id }), 404, 'not_found');
    await api.runtime.bus.idle();
    expect(events.map((event) => [event.type, (event.payload as { changes?: string[] }).changes ?? null])).toEqual([
      ['automation.created', null],
      ['automation.created', null],
      ['automation.updated', ['name', 'trigger']],
      ['automation.updated', ['enabled']],
      ['automation.deleted', null],
    ]);
    expect(events.every((event) => event.organizationId === org.organizationId)).toBe(true);
  });

  it('reports every problem of a definition with its path', async () => {
    const response = await call('automations.create', {
      name: 'Broken',
      trigger: { type: 'schedule', cron: '0 0 9 * * *', timezone: 'Mars/Olympus' },
      actions: [
        { type: 'create-record', model: 'Tasks', data: { title: '{{event.payload.x}}', notes: '{{secrets.key}}' } },
        { type: 'update-record', model: org.modelKey, data: {} },
        { type: 'notify', title: 'Hi', model: org.modelKey },
      ],
    });
    const error = await expectError(response, 400, 'validation_failed');
    expect(error.details).toEqual([
      { field: 'trigger.timezone', code: 'invalid_format', message: '"Mars/Olympus" is not an IANA time zone (e.g. Europe/Paris, UTC)' },
      { field: 'actions[0].model', code: 'invalid_format', message: 'is not a model key' },
      { field: 'actions[0].data.title', code: 'invalid_format', message: '{{event.payload.x}}: event is not available with this trigger' },
      { field: 'actions[0].data.notes', code: 'invalid_format', message: '{{secrets.key}} must start with input., event. or be {{now}}' },
      { field: 'actions[1]', code: 'required', message: 'an update-record action names its record by exactly one of recordId or filter' },
      { field: 'actions[2].model', code: 'unknown_field', message: 'is not a property of a notify action' },
      { field: 'actions[2]', code: 'required', message: 'a notify action needs userIds, a role or both' },
    ]);
    const typo = await call('automations.create', { name: 'Typo', trigger: { type: 'event', eventType: 'data-models.record-craeted' }, actions: createTask(org.modelKey) });
    expect((await expectError(typo, 400, 'validation_failed')).details?.[0]?.field).toBe('trigger.eventType');
    const personal = await call('automations.create', { name: 'Inbox', trigger: { type: 'event', eventType: 'notification.*' }, actions: createTask(org.modelKey) });
    expect((await expectError(personal, 400, 'validation_failed')).details).toEqual([
      { field: 'trigger.eventType', code: 'invalid_format', message: 'notifications are personal: no automation is triggered by them' },
    ]);
    const seconds = await call('automations.create', { name: 'Secs', trigger: { type: 'schedule', cron: '*/5 * * * * *', timezone: 'UTC' }, actions: createTask(org.modelKey) });
    expect((await expectError(seconds, 400, 'validation_failed')).details).toEqual([
      { field: 'trigger.cron', code: 'invalid_format', message: 'must have 5 fields: minute hour day-of-month month day-of-week' },
    ]);
    const unknownType = await call('automations.create', { name: 'X', trigger: { type: 'webhook' }, actions: createTask(org.modelKey) });
    await expectError(unknownType, 400, 'validation_failed');
  });

  it('lends nobody more authority than their own: members and service accounts', async () => {
    await org.rpc('rbac.roles.create', { key: 'automator', name: 'Automator', permissions: ['automations.manage', 'records.read', 'records.create'] });
    const automator = await org.addMember(['automator'], 'automator');
    const robot = await org.rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Robot', roleKeys: ['admin'] });
    const asRobot = await call('automations.create', { name: 'As robot', ownerId: robot.id, trigger: { type: 'http' }, actions: createTask(org.modelKey) }, automator.session);
    expect((await expectError(asRobot, 403, 'forbidden')).message).toContain('records.delete');
    // Nor as another person, whatever they hold.
    const asOwner = await call(
      'automations.create',
      { name: 'As owner', ownerId: org.owner.user.sub, trigger: { type: 'http' }, actions: createTask(org.modelKey) },
      automator.session,
    );
    expect((await expectError(asOwner, 400, 'validation_failed')).details?.[0]?.field).toBe('ownerId');

    // The owner may give one to the robot; the automator may then neither change nor run it.
    const robotic = await org.rpc<AutomationView>('automations.create', { name: 'Robotic', ownerId: robot.id, trigger: { type: 'http' }, actions: createTask(org.modelKey) });
    expect(robotic.ownerId).toBe(robot.id);
    await expectError(await call('automations.run', { id: robotic.id }, automator.session), 403, 'forbidden');
    await expectError(await call('automations.update', { id: robotic.id, actions: createTask(org.modelKey) }, automator.session), 403, 'forbidden');
    await expectError(await call('automations.rotateSecret', { id: robotic.id }, automator.session), 403, 'forbidden');
    // Turning it off lends nothing.
    expect((await call('automations.update', { id: robotic.id, enabled: false }, automator.session)).status).toBe(200);

    // Their own automation is theirs to run.
    const own = await org.rpc<AutomationView>('automations.create', { name: 'Mine', trigger: { type: 'http' }, actions: createTask(org.modelKey) }, automator.session);
    expect(own.ownerId).toBe(automator.user.sub);
    // A member without automations.manage sees none of it.
    const reader = await org.addMember(['read-only'], 'reader');
    await expectError(await call('automations.list', {}, reader.session), 403, 'forbidden');
  });
});
