export { authzModule } from './authz-module';
export { generateApiKeyToken, hashApiKeyToken } from './api-keys/api-key-token';
export { apiKeyProcedures } from './api-keys/api-key-procedures';
export { authenticateApiKey } from './api-keys/resolve-api-key-principal';
export { type CreatedApiKey } from './api-keys/api-key-view';
export { createServiceAccountProcedures } from './service-accounts/create-service-account-procedures';
export { type RateLimiter } from './rate-limit/rate-limiter';
export { InMemoryRateLimiter } from './rate-limit/in-memory-rate-limiter';
export { PostgresRateLimiter } from './rate-limit/postgres-rate-limiter';
export { Organization, User, Role } from './identity/entities';
export { meIdentityProcedure } from './accounts/me-identity-procedure';
export { ALL_PERMISSIONS } from './rbac/permission-catalog';
export { createSessionVerifier, type SessionClaims } from './session/session-verifier';
export { resolveSessionPrincipal } from './session/resolve-session-principal';
export {
  rolesOfOrganization,
  membersHolding,
  notifiableUserIds,
  deletedUserIds,
  emailAddressesOf,
  userIdsByVerifiedEmail,
  organizationsOfMembers,
  memberOrganizationIds,
  organizationMemberIds,
} from './directory/directory';
export type { UserNotifier, NotificationScope, NotificationMessage } from './notifier/user-notifier';
export { createAuthzProcedures } from './procedures/authz-procedures';
export { resolveMemberPrincipal, type MemberCannotAct, type MemberPrincipalResult } from './delegation/resolve-member-principal';
export {
  permissionsBeyond,
  assertWithinRoleCeiling,
  assertWithinActingCeiling,
  type RowAccessRoles,
  type RoleCeilingMode,
} from './access/grant-ceiling';
export { assertMayActAsMember } from './delegation/act-as-member';
export { liveMemberAccessSql } from './access/member-access-sql';
