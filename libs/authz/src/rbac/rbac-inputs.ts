import { Type } from '@sinclair/typebox';
import { USER_ID_SCHEMA } from '../users/user-inputs';

/**
 * The input schemas of the `rbac.*` procedures. Their static types are the inputs of authz's
 * contracts (decision 155): this file imports nothing server-side.
 */

/** Custom role keys; the built-in keys (`owner`, `admin`, `member`, `read-only`) fit it too. */
export const ROLE_KEY_PATTERN = '^[a-z][a-z0-9-]{0,62}$';

const ROLE_KEY = Type.String({ pattern: ROLE_KEY_PATTERN });
const ROLE_NAME = Type.String({ minLength: 1, maxLength: 100 });
const ROLE_DESCRIPTION = Type.String({ maxLength: 500 });
const PERMISSION_LIST = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, uniqueItems: true });

/** `rbac.permissions.list` */
export const RbacPermissionsListInput = Type.Object({}, { additionalProperties: false });

/** `rbac.roles.list` */
export const RbacRolesListInput = Type.Object({}, { additionalProperties: false });

/** `rbac.roles.create` */
export const RbacRolesCreateInput = Type.Object(
  { key: ROLE_KEY, name: ROLE_NAME, description: Type.Optional(ROLE_DESCRIPTION), permissions: PERMISSION_LIST },
  { additionalProperties: false },
);

/** `rbac.roles.update` */
export const RbacRolesUpdateInput = Type.Object(
  {
    key: ROLE_KEY,
    name: Type.Optional(ROLE_NAME),
    description: Type.Optional(ROLE_DESCRIPTION),
    permissions: Type.Optional(PERMISSION_LIST),
  },
  { additionalProperties: false },
);

/** `rbac.roles.delete` */
export const RbacRolesDeleteInput = Type.Object({ key: ROLE_KEY }, { additionalProperties: false });

/** `rbac.roles.assign`, `rbac.roles.revoke` */
export const RoleGrantInput = Type.Object(
  { userId: USER_ID_SCHEMA, roleKey: Type.String({ pattern: ROLE_KEY_PATTERN }) },
  { additionalProperties: false },
);
