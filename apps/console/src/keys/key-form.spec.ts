import { describe, expect, it } from 'vitest';
import { EMPTY_KEY_FORM, checkKeyForm, describeAccess, expiresAtFor, type KeyFormValues } from './key-form';

const NOW = new Date(2026, 10, 24, 12, 0, 0);
const OFFERED = new Set(['records.read', 'records.create']);
const form = (values: Partial<KeyFormValues>): KeyFormValues => ({ ...EMPTY_KEY_FORM, name: 'CRM sync', ...values });

describe('the key form', () => {
  it('builds a limited key from the chosen permissions, sorted, leaving out any not offered', () => {
    const { errors, input } = checkKeyForm(form({ permissions: new Set(['records.read', 'records.create', 'records.purge']) }), OFFERED, NOW);
    expect(errors).toEqual({});
    expect(input).toEqual({ name: 'CRM sync', fullAccess: false, permissions: ['records.create', 'records.read'] });
  });

  it('refuses a limited key with no permission, as the server would', () => {
    expect(checkKeyForm(form({ permissions: new Set() }), OFFERED, NOW)).toEqual({
      errors: { permissions: 'Choose at least one permission for a limited key' },
    });
    // Only unoffered ones chosen is the same as none.
    expect(checkKeyForm(form({ permissions: new Set(['records.purge']) }), OFFERED, NOW).errors.permissions).toBeDefined();
  });

  it('sends no permissions for a full-access key, whatever was ticked before switching', () => {
    const { input } = checkKeyForm(form({ access: 'full', permissions: new Set(['records.read']) }), OFFERED, NOW);
    expect(input).toEqual({ name: 'CRM sync', fullAccess: true });
  });

  it('requires a name that is not blank, at most 100 characters, and storable', () => {
    const permissions = new Set(['records.read']);
    expect(checkKeyForm(form({ name: '   ', permissions }), OFFERED, NOW).errors).toEqual({ name: 'Required' });
    expect(checkKeyForm(form({ name: 'x'.repeat(101), permissions }), OFFERED, NOW).errors).toEqual({ name: 'At most 100 characters' });
    expect(checkKeyForm(form({ name: 'bad\u0000name', permissions }), OFFERED, NOW).errors.name).toMatch(/cannot be stored/);
    expect(checkKeyForm(form({ name: '  trimmed  ', permissions }), OFFERED, NOW).input?.name).toBe('trimmed');
  });

  it('counts a preset expiry from now and a chosen date to the end of that day', () => {
    expect(expiresAtFor('never', '', NOW)).toBeNull();
    expect(expiresAtFor('30', '', NOW)).toEqual(new Date(NOW.getTime() + 30 * 24 * 3600 * 1000));
    expect(expiresAtFor('custom', '2026-12-31', NOW)).toEqual(new Date(2026, 11, 31, 23, 59, 59, 999));
    expect(expiresAtFor('custom', '', NOW)).toBe('invalid');
    expect(expiresAtFor('custom', '2026-02-30', NOW)).toBe('invalid');
  });

  it('refuses an expiry date in the past and sends a future one as an ISO timestamp', () => {
    const permissions = new Set(['records.read']);
    expect(checkKeyForm(form({ permissions, expiry: 'custom', expiryDate: '2026-11-23' }), OFFERED, NOW).errors).toEqual({
      expiresAt: 'Choose a date in the future',
    });
    expect(checkKeyForm(form({ permissions, expiry: 'custom', expiryDate: '' }), OFFERED, NOW).errors).toEqual({ expiresAt: 'Choose a date' });
    const { input } = checkKeyForm(form({ permissions, expiry: '7' }), OFFERED, NOW);
    expect(input?.expiresAt).toBe(new Date(NOW.getTime() + 7 * 24 * 3600 * 1000).toISOString());
  });

  it('describes access as the list shows it', () => {
    expect(describeAccess({ fullAccess: true, permissions: [] })).toBe('Full access');
    expect(describeAccess({ fullAccess: false, permissions: ['a'] })).toBe('Limited: 1 permission');
    expect(describeAccess({ fullAccess: false, permissions: ['a', 'b'] })).toBe('Limited: 2 permissions');
  });
});
