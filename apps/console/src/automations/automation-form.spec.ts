import { describe, expect, it } from 'vitest';
import { RpcError } from '../api/rpc-error';
import type { DataField } from '../data-models/types';
import { actionFormOf, checkAction, checkActions, emptyAction, parseJsonObject } from './action-form';
import { holdsTemplate, startingRows, type ValueRow } from './action-values';
import { changedAt, formErrorsOf, withoutErrorsOf } from './editor-errors';
import { OTHER_EVENTS, eventOptions, sourceOf } from './event-choices';
import { matchOfFilter } from './record-match';
import { templateSuggestions, watchedModel } from './template-suggestions';
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

const field = (key: string, type: DataField['type'], extra: Partial<DataField> = {}): DataField => ({
  key,
  name: key[0]!.toUpperCase() + key.slice(1),
  type,
  config: {},
  required: false,
  position: 0,
  indexed: false,
  indexStatus: null,
  indexError: null,
  archivedAt: null,
  ...extra,
});
const ORDER_FIELDS = [
  field('title', 'TEXT', { required: true }),
  field('amount', 'NUMBER'),
  field('stage', 'SELECT', { config: { options: [{ value: 'open' }, { value: 'won' }] } }),
  field('total', 'FORMULA', { config: { expression: 'amount * 2' } }),
];
const FIELDS = new Map([['orders', ORDER_FIELDS]]);
const typed = (key: string, value: ValueRow['value']): ValueRow => ({ field: key, mode: 'value', value, template: '' });
const templated = (key: string, template: string): ValueRow => ({ field: key, mode: 'template', value: '', template });

describe('the action editor', () => {
  it('reads JSON objects only (filters)', () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ value: { a: 1 } });
    expect(parseJsonObject('[1]')).toEqual({ error: 'Must be a JSON object: { "field": value, … }' });
    expect(parseJsonObject('{a:1}')).toMatchObject({ error: expect.stringMatching(/^Not valid JSON/) });
    expect(parseJsonObject('  ')).toEqual({ error: 'Required' });
  });

  it('builds each action type with only its properties, values typed by their fields or templates', () => {
    const create = { ...emptyAction('create-record'), model: 'orders', values: [templated('title', '{{input.ref}}'), typed('amount', '1,200.5'), typed('stage', 'won')] };
    expect(checkAction(create, 0, FIELDS)).toEqual({ errors: {}, action: { type: 'create-record', model: 'orders', data: { title: '{{input.ref}}', amount: 1200.5, stage: 'won' } } });
    const update = { ...emptyAction('update-record'), model: 'orders', values: [typed('stage', 'won')], target: 'filter' as const, filterJson: '{"field":"title","op":"eq","value":"{{input.ref}}"}', recordId: 'ignored' };
    expect(checkAction(update, 1, FIELDS).action).toEqual({ type: 'update-record', model: 'orders', filter: { field: 'title', op: 'eq', value: '{{input.ref}}' }, data: { stage: 'won' } });
    const notify = { ...emptyAction('notify'), title: 'Closed', userIds: ['u-1', 'u-2', 'u-1'], role: '', model: 'ignored' };
    expect(checkAction(notify, 2).action).toEqual({ type: 'notify', title: 'Closed', userIds: ['u-1', 'u-2'] });
  });

  it('checks values with field-validation before anything is sent, keyed as the server names them', () => {
    const wrong = { ...emptyAction('create-record'), model: 'orders', values: [typed('amount', 'twelve'), typed('stage', 'maybe')] };
    expect(checkAction(wrong, 0, FIELDS).errors).toEqual({
      'actions[0].data.amount': expect.any(String),
      'actions[0].data.stage': expect.any(String),
      'actions[0].data.title': expect.any(String),
    });
    // A template is any value until it runs, and counts as present for a required field.
    const template = { ...emptyAction('create-record'), model: 'orders', values: [templated('title', '{{input.t}}'), templated('amount', '{{input.n}}')] };
    expect(checkAction(template, 0, FIELDS).errors).toEqual({});
    expect(checkAction({ ...template, values: [templated('title', ' ')] }, 0, FIELDS).errors).toEqual({ 'actions[0].data.title': 'Write a template, e.g. {{input.value}}' });
  });

  it('says what is missing, at the path the server would name', () => {
    expect(checkAction(emptyAction('create-record'), 0).errors).toEqual({ 'actions[0].model': 'Choose a model' });
    expect(checkAction({ ...emptyAction('update-record'), model: 'orders', values: [typed('amount', '2')], recordId: ' ' }, 3, FIELDS).errors).toEqual({ 'actions[3].recordId': 'Required' });
    expect(checkAction({ ...emptyAction('notify'), title: 'Hi' }, 1).errors).toEqual({ 'actions[1]': 'Choose people to notify, a role, or both' });
    expect(checkActions([]).errors).toEqual({ actions: 'Add at least one action' });
    expect(checkActions(Array.from({ length: 11 }, () => emptyAction())).errors).toEqual({ actions: 'At most 10 actions' });
  });

  it('round-trips a stored action through the editor, typed values typed and templates as text', () => {
    const stored = { type: 'update-record' as const, model: 'orders', recordId: '{{event.payload.recordId}}', data: { stage: 'won', amount: 3.5, title: 'Deal {{input.ref}}' } };
    const form = actionFormOf(stored, ORDER_FIELDS);
    expect(form.values.map((row) => row.mode)).toEqual(['value', 'value', 'template']);
    expect(checkAction(form, 0, FIELDS).action).toEqual(stored);
    // A field the model lost is kept as stored, for the person to remove.
    expect(actionFormOf({ type: 'create-record', model: 'orders', data: { gone: 1 } }, ORDER_FIELDS).values).toEqual([{ field: 'gone', mode: 'value', value: '', template: '', stored: 1 }]);
  });

  it('starts a created record from its required fields, never a formula', () => {
    expect(startingRows(ORDER_FIELDS).map((row) => row.field)).toEqual(['title']);
    expect(holdsTemplate(['a', { b: 'x {{now}}' }])).toBe(true);
    expect(holdsTemplate('{{ unclosed')).toBe(false);
  });
});

describe('finding the record to update by a field’s value', () => {
  const byMatch = (match: { field: string; op: 'eq' | 'gt' | 'isEmpty' | 'contains'; value: string }) => ({
    ...emptyAction('update-record'),
    model: 'orders',
    values: [typed('stage', 'won')],
    target: 'match' as const,
    match,
  });

  it('builds one condition, its value typed by the field unless it is a template', () => {
    expect(checkAction(byMatch({ field: 'amount', op: 'gt', value: '1,000' }), 0, FIELDS).action?.filter).toEqual({ field: 'amount', op: 'gt', value: 1000 });
    expect(checkAction(byMatch({ field: 'amount', op: 'eq', value: '{{input.amount}}' }), 0, FIELDS).action?.filter).toEqual({ field: 'amount', op: 'eq', value: '{{input.amount}}' });
    expect(checkAction(byMatch({ field: 'stage', op: 'isEmpty', value: 'ignored' }), 0, FIELDS).action?.filter).toEqual({ field: 'stage', op: 'isEmpty' });
  });

  it('refuses what the filter rules refuse, at the filter', () => {
    expect(checkAction(byMatch({ field: 'amount', op: 'eq', value: 'lots' }), 0, FIELDS).errors).toEqual({ 'actions[0].filter': expect.any(String) });
    expect(checkAction(byMatch({ field: '', op: 'eq', value: '' }), 0, FIELDS).errors).toEqual({ 'actions[0].filter': 'Choose a field' });
    expect(checkAction(byMatch({ field: 'title', op: 'eq', value: ' ' }), 0, FIELDS).errors).toEqual({ 'actions[0].filter': 'Give the value to match, or a template' });
  });

  it('opens a stored single condition as a match, and anything richer as JSON', () => {
    const stored = { type: 'update-record' as const, model: 'orders', filter: { field: 'amount', op: 'eq', value: 3 }, data: { stage: 'won' } };
    const form = actionFormOf(stored, ORDER_FIELDS);
    expect(form.target).toBe('match');
    expect(checkAction(form, 0, FIELDS).action).toEqual(stored);
    expect(matchOfFilter({ and: [{ field: 'amount', op: 'eq', value: 3 }] })).toBeUndefined();
    expect(matchOfFilter({ field: 'stage', op: 'in', value: ['won'] })).toBeUndefined();
    expect(actionFormOf({ ...stored, filter: { field: 'stage', op: 'in', value: ['won'] } }, ORDER_FIELDS).target).toBe('filter');
  });
});

describe('the event picker', () => {
  it('offers one model’s record events, or the catalog’s types, and keeps a saved type no list holds', () => {
    expect(sourceOf('data-models.orders.record-created', ['orders'])).toBe('orders');
    expect(sourceOf('data-models.*', ['orders'])).toBe(OTHER_EVENTS);
    expect(eventOptions('orders', [], '').map((option) => option.value)).toEqual([
      '',
      'data-models.orders.record-created',
      'data-models.orders.record-updated',
      'data-models.orders.record-deleted',
      'data-models.orders.*',
    ]);
    expect(eventOptions(OTHER_EVENTS, ['rbac.role-created'], 'kanban.*').map((option) => option.value)).toEqual(['', 'kanban.*', 'rbac.role-created', 'rbac.*', '*']);
  });
});

describe('template suggestions', () => {
  it('offer the watched model’s record values to an event trigger, the slot to a schedule, and now to all', () => {
    const event = { ...emptyTrigger(), type: 'event' as const, eventType: 'data-models.orders.record-created' };
    expect(watchedModel(event)).toBe('orders');
    expect(watchedModel({ ...event, eventType: 'data-models.orders.record-deleted' })).toBeUndefined();
    expect(templateSuggestions(event, ORDER_FIELDS)).toEqual([
      '{{event.payload.recordId}}',
      '{{event.payload.record.title}}',
      '{{event.payload.record.data.amount}}',
      '{{event.payload.record.data.stage}}',
      '{{event.payload.record.data.total}}',
      '{{event.type}}',
      '{{event.occurredAt}}',
      '{{now}}',
    ]);
    expect(templateSuggestions({ ...event, type: 'schedule' }, undefined)).toEqual(['{{input.scheduledFor}}', '{{now}}']);
    expect(templateSuggestions({ ...event, type: 'http' }, undefined)).toEqual(['{{input.name}}', '{{now}}']);
  });
});

describe('the server’s refusals', () => {
  it('land on the value, the filter or the property they name', () => {
    const refusal = new RpcError({
      code: 'validation_failed',
      message: 'The request is invalid',
      status: 400,
      requestId: 'r',
      details: [
        { field: 'actions[0].data.tags[1]', code: 'invalid_option', message: 'Not an option' },
        { field: 'actions[0].filter.and[0].field', code: 'unknown_field', message: 'No such field' },
        { field: 'actions[1].model', code: 'not_found', message: 'No model' },
      ],
    });
    expect(formErrorsOf(refusal)).toEqual({ 'actions[0].data.tags': 'Not an option', 'actions[0].filter': 'No such field', 'actions[1].model': 'No model' });
  });

  it('go from an input once it changes, and stay on the others', () => {
    const before = { ...emptyAction('create-record'), model: 'orders', values: [typed('amount', 'x'), typed('stage', 'won')] };
    const after = { ...before, values: [typed('amount', '2'), typed('stage', 'won')] };
    const errors = { 'actions[0].data.amount': 'Not a number', 'actions[0].data.stage': 'Gone', 'actions[1].model': 'No model', name: 'Required' };
    expect(withoutErrorsOf(errors, (path) => changedAt(path, 'actions[0]', before, after))).toEqual({
      'actions[0].data.stage': 'Gone',
      'actions[1].model': 'No model',
      name: 'Required',
    });
    expect(changedAt('actions[0].model', 'actions[0]', before, { ...before, model: 'deals' })).toBe(true);
    expect(withoutErrorsOf(errors, () => false)).toBe(errors);
  });
});

describe('the automation form', () => {
  it('builds a whole definition and refuses a bad rate', () => {
    const values = { ...emptyAutomationForm(), name: ' Nightly ', trigger: { ...emptyTrigger(), type: 'http' as const }, actions: [{ ...emptyAction(), model: 'orders', values: [templated('title', 'Created {{now}}')] }] };
    expect(checkAutomationForm(values, KNOWN, NOW, FIELDS).input).toEqual({
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
