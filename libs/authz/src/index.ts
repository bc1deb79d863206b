export { authzModule } from './authz-module';
export { Organization, User, Membership, Role, RoleGrant, Invite } from './identity/entities';
export {
  PERMISSIONS,
  ALL_PERMISSIONS,
  BUILT_IN_ROLES,
  isPermission,
  type Permission,
  type BuiltInRole,
} from './rbac/permission-catalog';
