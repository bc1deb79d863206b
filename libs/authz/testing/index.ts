export { ADMIN_EMAIL, createAuthzHarness, type AuthzHarness } from './authz-harness';
export {
  invokeAs,
  RecordingDispatcher,
  seedHuman,
  seedMember,
  seedMembership,
  seedOrganization,
  seedRole,
  sessionPrincipal,
  type SeededOrganization,
} from './identity-seed';
export { holdTransaction, settle, waitForLockWaiters, type HeldTransaction, type Settled } from './concurrency';
export { RowAccessRoleSet } from './row-access-role-set';
