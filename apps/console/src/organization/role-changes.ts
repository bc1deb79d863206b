export interface RoleChange {
  procedure: 'rbac.roles.assign' | 'rbac.roles.revoke';
  roleKey: string;
}

/**
 * The grants and revocations that turn a member's roles into the chosen ones: grants first, so a
 * member moved from one role to another is never left with none (the last owner keeps theirs).
 */
export function roleChanges(current: readonly string[], chosen: ReadonlySet<string>): RoleChange[] {
  const held = new Set(current);
  const grants = [...chosen].filter((key) => !held.has(key)).sort();
  const revocations = current.filter((key) => !chosen.has(key)).sort();
  return [
    ...grants.map((roleKey) => ({ procedure: 'rbac.roles.assign' as const, roleKey })),
    ...revocations.map((roleKey) => ({ procedure: 'rbac.roles.revoke' as const, roleKey })),
  ];
}

/** A role key from a role's name: lower case, dashes, starting with a letter (the server's pattern). */
export function roleKeyFromName(name: string): string {
  const key = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '');
  return key.slice(0, 63).replace(/-+$/, '');
}
