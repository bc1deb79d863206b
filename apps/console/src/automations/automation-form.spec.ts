import { describe, expect, it } from 'vitest';
import { actionFormOf, checkAction, checkActions, emptyAction, parseJsonObject } from './action-form';
import { automationFormOf, checkAutomationForm, emptyAutomationForm } from './automation-form';
import { checkTrigger, cronSchedule, describeTrigger, emptyTrigger, isTimeZone } from './trigger-form';

const KNOWN = new Set(['data-models.record-created', 'notification.created', 'rbac.role-created']);
const NOW = new Date('2026-11-24T08:00:00Z');

describe('the trigger editor', () => {
  it('sends only the properties of the chosen type', () => {
    const values = { ...emptyTrigger(), eventType: 'rbac.role-created', cron: '*/5 * * * *', timezone: 'UTC' };
    expect(checkTrigger({ ...values, type: 'http' }, KNOWN, NOW)).toEqual({ errors: {}, input: { type: 'http' } });
    expect(checkTrigger({ ...values, type: 'event', includeOwnRuns: true }, KNOWN, NOW).input).toEqual({ type: 'event', eventType: 'rbac.role-created', includeOwnRuns: true });
    expect(checkTrigger({ ...values, type: 'schedule', cron: ' 0  9 * * 1-5 ' }, KNOWN, NOW).input).toEqual({ type: 'schedule', cron: '0 9 * * 1-5', timezone: 'UTC' });
  });

  it('refuses a cron expression without 5 fields, one croner cannot read, and an unknown time zone', () => {
    const schedule = { ...emptyTrigger(), type: 'schedule' as const, timezone: 'Europe/Paris' };
    expect(checkTrigger({ ...schedule, cron: '0 9 * *' }, KNOWN, NOW).errors['trigger.cron']).toMatch(/5 fields/);
    expect(checkTrigger({ ...schedule, cron: '0 9 * * 1-5 2026' }, KNOWN, NOW).errors['trigger.cron']).toMatch(/5 fields/);
    expect(checkTrigger({ ...schedule, cron: '61 9 * * *' }, KNOWN, NOW).errors['trigger.cron']).toMatch(/Not a valid cron expression/);
    expect(checkTrigger({ ...schedule, cron: '' }, KNOWN, NOW).errors['trigger.cron']).toBe('Required');
    expect(checkTrigger({ ...schedule, cron: '0 9 * * *', timezone: 'Mars/Olympus' }, KNOWN, NOW).errors).toEqual({
      'trigger.timezone': '"Mars/Olympus" is not an IANA time zone (e.g. Europe/Paris, UTC)',
    });
    expect(isTimeZone('Europe/Paris')).toBe(true);
  });

  it('previews the next slots in the chosen zone', () => {
    const schedule = cronSchedule('0 9 * * *', 'Europe/Paris', 2, NOW);
    // 09:00 in Paris is 08:00 UTC in winter; the slot at exactly NOW is not after it.
    expect('next' in schedule ? schedule.next.map((date) => date.toISOString()) : schedule).toEqual(['2026-11-25T08:00:00.000Z', '2026-11-26T08:00:00.000Z']);
  });

  it('refuses an event type that is a typo, missing, or a notification', () => {
    const event = { ...emptyTrigger(), type: 'event' as const };
    expect(checkTrigger({ ...event, eventType: '' }, KNOWN, NOW).errors).toEqual({ 'trigger.eventType': 'Choose an event type' });
    expect(checkTrigger({ ...event, eventType: 'rbac.role-creatd' }, KNOWN, NOW).errors['trigger.eventType']).toMatch(/not an event type/);
    expect(checkTrigger({ ...event, eventType: 'notification.created' }, KNOWN, NOW).errors['trigger.eventType']).toMatch(/personal/);
    expect(checkTrigger({ ...event, eventType: 'data-models.orders.record-created' }, KNOWN, NOW).errors).toEqual({});
  });

  it('describes triggers as the list shows them', () => {
    expect(describeTrigger({ type: 'http', secretPrefix: 'ahk_abcd' })).toBe('HTTP hook (ahk_abcd…)');
    expect(describeTrigger({ type: 'schedule', cron: '0 9 * * 1-5', timezone: 'Europe/Paris' })).toBe('Schedule 0 9 * * 1-5 (Europe/Paris)');
    expect(describeTrigger({ type: 'event', eventType: 'data-models.*' })).toBe('On data-models.*');
  });
});

describe('the action editor', () => {
  it('reads JSON objects only', () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ value: { a: 1 } });
    expect(parseJsonObject('[1]')).toEqual({ error: 'Must be a JSON object: { "field": value, … }' });
    expect(parseJsonObject('{a:1}')).toMatchObject({ error: expect.stringMatching(/^Not valid JSON/) });
    expect(parseJsonObject('  ')).toEqual({ error: 'Required' });
  });

  it('builds each action type with only its properties, keyed for the server’s field paths', () => {
    const create = { ...emptyAction('create-record'), model: 'orders', dataJson: '{"title":"{{input.ref}}"}' };
    expect(checkAction(create, 0)).toEqual({ errors: {}, action: { type: 'create-record', model: 'orders', data: { title: '{{input.ref}}' } } });
    const update = { ...emptyAction('update-record'), model: 'orders', dataJson: '{"status":"done"}', target: 'filter' as const, filterJson: '{"field":"ref","op":"eq","value":"{{input.ref}}"}', recordId: 'ignored' };
    expect(checkAction(update, 1).action).toEqual({ type: 'update-record', model: 'orders', filter: { field: 'ref', op: 'eq', value: '{{input.ref}}' }, data: { status: 'done' } });
    const notify = { ...emptyAction('notify'), title: 'Closed', userIds: 'u-1, u-2\nu-1', role: '', model: 'ignored' };
    expect(checkAction(notify, 2).action).toEqual({ type: 'notify', title: 'Closed', userIds: ['u-1', 'u-2'] });
  });

  it('says what is missing, at the path the server would name', () => {
    expect(checkAction({ ...emptyAction('create-record'), dataJson: '[]' }, 0).errors).toEqual({
      'actions[0].model': 'Choose a model',
      'actions[0].data': 'Must be a JSON object: { "field": value, … }',
    });
    expect(checkAction({ ...emptyAction('update-record'), model: 'orders', recordId: ' ' }, 3).errors).toEqual({ 'actions[3].recordId': 'Required' });
    expect(checkAction({ ...emptyAction('notify'), title: 'Hi' }, 1).errors).toEqual({ 'actions[1]': 'Notify members by id, everyone holding a role, or both' });
    expect(checkActions([]).errors).toEqual({ actions: 'Add at least one action' });
    expect(checkActions(Array.from({ length: 11 }, () => emptyAction())).errors).toEqual({ actions: 'At most 10 actions' });
  });

  it('round-trips a stored action through the editor', () => {
    const stored = { type: 'update-record' as const, model: 'orders', recordId: '{{event.payload.recordId}}', data: { status: 'done' } };
    expect(checkAction(actionFormOf(stored), 0).action).toEqual(stored);
  });
});

describe('the automation form', () => {
  it('builds a whole definition and refuses a bad rate', () => {
    const values = { ...emptyAutomationForm(), name: ' Nightly ', trigger: { ...emptyTrigger(), type: 'http' as const }, actions: [{ ...emptyAction(), model: 'orders' }] };
    expect(checkAutomationForm(values, KNOWN, NOW).input).toEqual({
      name: 'Nightly',
      enabled: true,
      maxRunsPerMinute: 60,
      trigger: { type: 'http' },
      actions: [{ type: 'create-record', model: 'orders', data: { title: 'Created {{now}}' } }],
    });
    expect(checkAutomationForm({ ...values, maxRunsPerMinute: '0' }, KNOWN, NOW).errors).toEqual({ maxRunsPerMinute: 'A whole number from 1 to 6000' });
    expect(checkAutomationForm({ ...values, name: '' }, KNOWN, NOW).errors).toEqual({ name: 'Required' });
  });

  it('loads a stored automation for editing', () => {
    const form = automationFormOf({
      id: 'a-1',
      name: 'Weekdays',
      enabled: false,
      ownerId: 'u-1',
      trigger: { type: 'schedule', cron: '0 9 * * 1-5', timezone: 'Europe/Paris', nextRunAt: null },
      actions: [{ type: 'notify', role: 'owner', title: 'Good morning' }],
      maxRunsPerMinute: 5,
      createdBy: 'u-1',
      createdAt: '2026-11-20T10:00:00.000Z',
      updatedAt: '2026-11-20T10:00:00.000Z',
    });
    expect(checkAutomationForm(form, KNOWN, NOW).input).toEqual({
      name: 'Weekdays',
      enabled: false,
      maxRunsPerMinute: 5,
      trigger: { type: 'schedule', cron: '0 9 * * 1-5', timezone: 'Europe/Paris' },
      actions: [{ type: 'notify', role: 'owner', title: 'Good morning' }],
    });
  });
});
