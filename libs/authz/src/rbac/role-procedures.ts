import type { EntityManager } from '@mikro-orm/postgresql';
import { badRequest, conflict, defineProcedure, newId, validationFailed } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { assertWithinGrantCeiling, assertWithinRoleCeiling, type RowAccessRoles } from '../access/grant-ceiling';
import { sqlTextArray } from '../db/sql-values';
import { ALL_PERMISSIONS, PERMISSIONS } from './permission-catalog';
import { assertKnownPermissions } from './permission-input';
import { RbacPermissionsListInput, RbacRolesCreateInput, RbacRolesDeleteInput, RbacRolesListInput, RbacRolesUpdateInput } from './rbac-inputs';
import { listRoles, requireRoleByKey, toRoleView, type RoleRow } from './role-rows';
import { DeletedRoleSchema, PermissionListSchema, RoleListSchema, RoleViewSchema } from './role-view';

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw validationFailed([{ field: 'name', code: 'required', message: 'must not be blank' }]);
  return trimmed;
}

async function requireCustomRole(em: EntityManager, organizationId: string, key: string, verb: string): Promise<RoleRow> {
  const role = await requireRoleByKey(em, organizationId, key);
  if (role.built_in) throw badRequest(`Built-in roles cannot be ${verb}`);
  return role;
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');

export const listPermissions = defineProcedure({
  name: 'rbac.permissions.list',
  summary: 'The permission catalog with descriptions',
  scope: 'user',
  permission: null,
  readOnly: true,
  input: RbacPermissionsListInput,
  output: PermissionListSchema,
  async handler() {
    return { items: ALL_PERMISSIONS.map((key) => ({ key, description: PERMISSIONS[key] })) };
  },
});

export const listRolesProcedure = defineProcedure({
  name: 'rbac.roles.list',
  summary: "The active organization's roles, built-in first",
  scope: 'organization',
  permission: null,
  readOnly: true,
  input: RbacRolesListInput,
  output: RoleListSchema,
  async handler(ctx) {
    return { items: (await listRoles(ctx.em, ctx.organizationId)).map(toRoleView) };
  },
});

export const createRole = defineProcedure({
  name: 'rbac.roles.create',
  summary: 'Create a custom role holding a subset of your own permissions',
  scope: 'organization',
  permission: 'rbac.manage',
  input: RbacRolesCreateInput,
  output: RoleViewSchema,
  async handler(ctx, input) {
    const name = cleanName(input.name);
    assertKnownPermissions(input.permissions);
    assertWithinGrantCeiling(ctx.principal, input.permissions, 'grant');
    const permissions = [...input.permissions].sort();
    const roleId = newId();
    const inserted = await ctx.em.execute<Array<{ id: string }>>(
      `INSERT INTO roles (id, organization_id, key, name, description, permissions, built_in)
       VALUES (?, ?, ?, ?, ?, ?::text[], false)
       ON CONFLICT (organization_id, key) DO NOTHING
       RETURNING id`,
      [roleId, ctx.organizationId, input.key, name, input.description?.trim() ?? '', sqlTextArray(permissions)],
    );
    if (inserted.length === 0) throw conflict(`A role with key "${input.key}" already exists`);
    ctx.emit(
      createEvent(
        'rbac.role-created',
        { organizationId: ctx.organizationId, roleId, roleKey: input.key, permissions },
        { organizationId: ctx.organizationId },
      ),
    );
    return toRoleView(await requireRoleByKey(ctx.em, ctx.organizationId, input.key));
  },
});

export const updateRole = defineProcedure({
  name: 'rbac.roles.update',
  summary: "Rename a custom role or change its permissions (its key is immutable); members' rights change on their next call",
  scope: 'organization',
  permission: 'rbac.manage',
  input: RbacRolesUpdateInput,
  output: RoleViewSchema,
  async handler(ctx, input) {
    const role = await requireCustomRole(ctx.em, ctx.organizationId, input.key, 'changed');
    if (input.permissions) assertKnownPermissions(input.permissions);
    assertWithinGrantCeiling(ctx.principal, role.permissions, 'change a role carrying');
    if (input.permissions) assertWithinGrantCeiling(ctx.principal, input.permissions, 'grant');

    const name = input.name === undefined ? role.name : cleanName(input.name);
    const description = input.description === undefined ? role.description : input.description.trim();
    const permissions = input.permissions ? [...input.permissions].sort() : role.permissions;
    const changes = [
      ...(name !== role.name ? ['name'] : []),
      ...(description !== role.description ? ['description'] : []),
      ...(!sameSet(permissions, role.permissions) ? ['permissions'] : []),
    ];
    if (changes.length === 0) return toRoleView(role);

    await ctx.em.execute(
      'UPDATE roles SET name = ?, description = ?, permissions = ?::text[], updated_at = now() WHERE id = ?',
      [name, description, sqlTextArray(permissions), role.id],
    );
    ctx.emit(
      createEvent(
        'rbac.role-updated',
        { organizationId: ctx.organizationId, roleId: role.id, roleKey: role.key, changes },
        { organizationId: ctx.organizationId },
      ),
    );
    return toRoleView(await requireRoleByKey(ctx.em, ctx.organizationId, role.key));
  },
});

const deleteRole = (rowAccess: RowAccessRoles) => defineProcedure({
  name: 'rbac.roles.delete',
  summary: 'Delete a custom role; its members lose it on their next call',
  scope: 'organization',
  permission: 'rbac.manage',
  input: RbacRolesDeleteInput,
  output: DeletedRoleSchema,
  async handler(ctx, input) {
    const role = await requireCustomRole(ctx.em, ctx.organizationId, input.key, 'deleted');
    assertWithinGrantCeiling(ctx.principal, role.permissions, 'delete a role carrying');
    // The role's records lose their restriction with it (record_access cascades): every reader
    // of their models sees them, so it is granting the role to everyone.
    await assertWithinRoleCeiling(ctx.em, rowAccess, ctx.principal, ctx.organizationId, [role.id], 'grant', 'delete');
    await ctx.em.execute('DELETE FROM roles WHERE id = ?', [role.id]);
    ctx.emit(
      createEvent(
        'rbac.role-deleted',
        { organizationId: ctx.organizationId, roleId: role.id, roleKey: role.key },
        { organizationId: ctx.organizationId },
      ),
    );
    return { key: role.key, deleted: true as const };
  },
});

export function createRoleProcedures(deps: { rowAccessRoles: RowAccessRoles }) {
  return [listPermissions, listRolesProcedure, createRole, updateRole, deleteRole(deps.rowAccessRoles)];
}
