import { Type, type Static } from '@sinclair/typebox';

/** A role as `rbac.roles.*` answer it. */
export const RoleViewSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  key: Type.String(),
  name: Type.String(),
  description: Type.String(),
  permissions: Type.Array(Type.String()),
  builtIn: Type.Boolean(),
  memberCount: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type RoleView = Static<typeof RoleViewSchema>;

/** An entry of the permission catalog, as `rbac.permissions.list` answers it. */
export const PermissionInfoSchema = Type.Object({ key: Type.String(), description: Type.String() });
export type PermissionInfo = Static<typeof PermissionInfoSchema>;

/** `rbac.permissions.list` */
export const PermissionListSchema = Type.Object({ items: Type.Array(PermissionInfoSchema) });

/** `rbac.roles.list` */
export const RoleListSchema = Type.Object({ items: Type.Array(RoleViewSchema) });

/** `rbac.roles.delete` */
export const DeletedRoleSchema = Type.Object({ key: Type.String(), deleted: Type.Literal(true) });

/** `rbac.roles.assign`, `rbac.roles.revoke`: the member's role keys after the change. */
export const MemberRolesSchema = Type.Object({ userId: Type.String(), roleKeys: Type.Array(Type.String()) });
