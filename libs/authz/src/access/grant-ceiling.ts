import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, sqlTextArray, type Principal } from '@mrp/platform';

/** The permissions of `wanted` the principal does not hold itself, sorted. */
export function permissionsBeyond(principal: Principal, wanted: Iterable<string>): string[] {
  return [...new Set(wanted)].filter((permission) => !principal.permissions.has(permission)).sort();
}

/**
 * Nobody hands out (or takes away) authority they do not hold: granting a role, creating or
 * changing one, or inviting with one is refused when it carries a permission outside the
 * caller's current permissions, so an admin cannot mint an owner.
 */
export function assertWithinGrantCeiling(principal: Principal, wanted: Iterable<string>, action: string): void {
  const beyond = permissionsBeyond(principal, wanted);
  if (beyond.length > 0) {
    throw forbidden(`You cannot ${action} permissions you do not hold: ${beyond.join(', ')}`);
  }
}

/**
 * Which roles grant row access: those some record's access is restricted to. The records are
 * data-models', which depends on authz, so data-models implements this and the runtime wires it.
 */
export interface RowAccessRoles {
  /** Of `roleIds` (roles of `organizationId`), the ones that grant access to some record. */
  grantingRowAccess(em: EntityManager, organizationId: string, roleIds: readonly string[]): Promise<string[]>;
}

/**
 * Why authority passes on: `act-as` makes something act as another principal (an automation's
 * owner, a service account's key); `grant` gives a role to a member or an invitee.
 */
export type RoleCeilingMode = 'act-as' | 'grant';

/**
 * Record visibility follows role ids, not permissions, so a permission ceiling alone lets anyone
 * who may hand out or borrow a role read what that role guards. Acting as a principal, or granting
 * roles, also needs every role of `roleIds` that grants row access. The organization's built-in
 * owners may still grant such a role (someone has to administer them, and the grant is an
 * `rbac.role-assigned` event); nobody, owners included, acts as a principal beyond their own.
 */
export async function assertWithinRoleCeiling(
  em: EntityManager,
  rowAccess: RowAccessRoles,
  principal: Principal,
  organizationId: string,
  roleIds: Iterable<string>,
  mode: RoleCeilingMode,
  action: string,
): Promise<void> {
  const held = new Set(principal.roleIds);
  const missing = [...new Set(roleIds)].filter((roleId) => !held.has(roleId));
  if (missing.length === 0) return;
  const granting = await rowAccess.grantingRowAccess(em, organizationId, missing);
  if (granting.length === 0) return;
  if (mode === 'grant' && principal.roleIds.length > 0) {
    const [owner] = await em.execute<Array<{ id: string }>>(
      `SELECT id FROM roles WHERE organization_id = ? AND built_in AND key = 'owner' AND id = ANY(?::uuid[])`,
      [organizationId, sqlTextArray(principal.roleIds)],
    );
    if (owner) return;
  }
  const roles = await em.execute<Array<{ key: string }>>(
    'SELECT key FROM roles WHERE organization_id = ? AND id = ANY(?::uuid[]) ORDER BY key',
    [organizationId, sqlTextArray(granting)],
  );
  throw forbidden(
    `You cannot ${action} roles that grant record access you do not hold: ${roles.map((role) => role.key).join(', ')}`,
  );
}

/**
 * Making something act as `actedAs` (an automation's owner, a webhook endpoint's principal):
 * every permission and every row-access role it holds must be the caller's too.
 */
export async function assertWithinActingCeiling(
  em: EntityManager,
  rowAccess: RowAccessRoles,
  caller: Principal,
  organizationId: string,
  actedAs: Pick<Principal, 'permissions' | 'roleIds'>,
  action: string,
): Promise<void> {
  const beyond = permissionsBeyond(caller, actedAs.permissions);
  if (beyond.length > 0) throw forbidden(`You cannot ${action} permissions you do not hold: ${beyond.join(', ')}`);
  await assertWithinRoleCeiling(em, rowAccess, caller, organizationId, actedAs.roleIds, 'act-as', action);
}
