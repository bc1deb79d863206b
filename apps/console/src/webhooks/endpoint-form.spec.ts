import { describe, expect, it } from 'vitest';
import { EMPTY_ENDPOINT_FORM, checkEndpointForm, checkOverlap, checkWindow, isoToLocalDateTime, localDateTimeToIso, urlProblem } from './endpoint-form';
import { groupByModule, patternMatchesType, recordTypesOf, subscriptionProblem } from './subscription-patterns';

const KNOWN = new Set(['data-models.record-created', 'rbac.role-created', 'webhook.endpoint-disabled-after-failures']);

describe('subscription patterns', () => {
  it('accepts *, catalog types, per-model record types and prefixes, as the server does', () => {
    for (const pattern of ['*', 'rbac.role-created', 'data-models.orders.record-deleted', 'data-models.*', 'data-models.orders.*']) {
      expect(subscriptionProblem(pattern, KNOWN)).toBeUndefined();
    }
  });

  it('refuses a typo that would never fire and a malformed prefix', () => {
    expect(subscriptionProblem('data-models.record-creatd', KNOWN)).toMatch(/not an event type/);
    expect(subscriptionProblem('data-models.Orders.record-created', KNOWN)).toMatch(/not an event type/);
    expect(subscriptionProblem('Data.*', KNOWN)).toMatch(/not a valid prefix/);
  });

  it('matches types exactly, by prefix, or all', () => {
    expect(patternMatchesType('*', 'rbac.role-created')).toBe(true);
    expect(patternMatchesType('rbac.*', 'rbac.role-created')).toBe(true);
    expect(patternMatchesType('rbac.*', 'rbacx.role-created')).toBe(false);
    expect(patternMatchesType('rbac.role-created', 'rbac.role-created')).toBe(true);
    expect(patternMatchesType('rbac.role-created', 'rbac.role-deleted')).toBe(false);
  });

  it('groups the catalog by module and names a model’s record types', () => {
    expect(groupByModule(['rbac.a', 'user.b', 'rbac.c'])).toEqual([
      { module: 'rbac', types: ['rbac.a', 'rbac.c'] },
      { module: 'user', types: ['user.b'] },
    ]);
    expect(recordTypesOf('orders')).toEqual(['data-models.orders.record-created', 'data-models.orders.record-updated', 'data-models.orders.record-deleted']);
  });
});

describe('the endpoint form', () => {
  const form = { ...EMPTY_ENDPOINT_FORM, url: 'https://erp.example.com/hooks', subscriptions: ['data-models.*'] };

  it('builds the input with trimmed values, subscriptions once each, and no empty description', () => {
    expect(checkEndpointForm({ ...form, url: ' https://erp.example.com/hooks ', subscriptions: ['data-models.*', 'data-models.*', ' rbac.role-created '] }, KNOWN)).toEqual({
      errors: {},
      input: { url: 'https://erp.example.com/hooks', subscriptions: ['data-models.*', 'rbac.role-created'], signing: 'contract', ordering: 'none' },
    });
    expect(checkEndpointForm({ ...form, description: ' ERP ' }, KNOWN).input?.description).toBe('ERP');
  });

  it('requires a URL of http(s) without credentials, and at least one valid subscription', () => {
    expect(checkEndpointForm({ ...EMPTY_ENDPOINT_FORM }, KNOWN).errors).toEqual({ url: 'Required', subscriptions: 'Choose at least one event' });
    expect(urlProblem('ftp://example.com/')).toMatch(/https/);
    expect(urlProblem('example.com/hook')).toMatch(/full address/);
    expect(urlProblem('https://user:pw@example.com/')).toMatch(/user name or password/);
    expect(urlProblem(`https://example.com/${'x'.repeat(2048)}`)).toBe('At most 2048 characters');
    expect(urlProblem('http://127.0.0.1:8080/hook')).toBeUndefined();
    expect(checkEndpointForm({ ...form, subscriptions: ['rbac.role-creatd'] }, KNOWN).errors.subscriptions).toBe(
      '"rbac.role-creatd" is not an event type of the catalog, a prefix ending in .* or *',
    );
  });

  it('takes a rotation overlap in whole seconds up to 7 days, blank meaning none', () => {
    expect(checkOverlap('')).toEqual({ seconds: 0 });
    expect(checkOverlap('3600')).toEqual({ seconds: 3600 });
    expect(checkOverlap('604800')).toEqual({ seconds: 604800 });
    expect(checkOverlap('604801').error).toMatch(/7 days/);
    expect(checkOverlap('1.5').error).toMatch(/Whole seconds/);
    expect(checkOverlap('-1').error).toMatch(/Whole seconds/);
  });
});

describe('time windows', () => {
  it('reads datetime-local values in the reader’s zone and writes them back to the minute', () => {
    const local = new Date(2026, 10, 24, 9, 30);
    expect(localDateTimeToIso('2026-11-24T09:30')).toBe(local.toISOString());
    expect(isoToLocalDateTime(local)).toBe('2026-11-24T09:30');
    expect(localDateTimeToIso('')).toBeUndefined();
    expect(localDateTimeToIso('yesterday')).toBe('invalid');
  });

  it('requires the start only when asked, and an end after the start', () => {
    expect(checkWindow('', '')).toEqual({ errors: {}, since: undefined, until: undefined });
    expect(checkWindow('', '', { sinceRequired: true }).errors).toEqual({ since: 'Required' });
    expect(checkWindow('2026-11-24T10:00', '2026-11-24T09:00').errors).toEqual({ until: 'Must be after the start' });
    expect(checkWindow('2026-11-24T09:00', '2026-11-24T10:00').until).toBe(new Date(2026, 10, 24, 10, 0).toISOString());
  });
});
