import { ALL_PERMISSIONS, BUILT_IN_ROLES } from './permission-catalog';

describe('built-in roles', () => {
  const byKey = Object.fromEntries(BUILT_IN_ROLES.map((role) => [role.key, new Set(role.permissions)]));

  it('owner holds every permission and admin all but organization.manage', () => {
    expect([...byKey.owner].sort()).toEqual([...ALL_PERMISSIONS].sort());
    expect(byKey.admin.has('organization.manage')).toBe(false);
    expect(byKey.admin.size).toBe(ALL_PERMISSIONS.length - 1);
  });

  it('read-only can only read', () => {
    expect([...byKey['read-only']].sort()).toEqual(['api-keys.manage', 'data-models.read', 'records.read']);
  });
});
