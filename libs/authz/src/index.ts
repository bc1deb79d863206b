export { authzModule } from './authz-module';
export { ApiKey } from './api-keys/api-key.entity';
export {
  generateApiKeyToken,
  parseApiKeyToken,
  hashApiKeyToken,
  API_KEY_TOKEN_PREFIX,
  API_KEY_TOKEN_LENGTH,
  type GeneratedApiKeyToken,
} from './api-keys/api-key-token';
export { apiKeyProcedures } from './api-keys/api-key-procedures';
export {
  authenticateApiKey,
  resolveApiKeyPrincipal,
  type ApiKeyAuthentication,
  type AuthenticateApiKeyOptions,
  type ResolveApiKeyOptions,
} from './api-keys/resolve-api-key-principal';
export { type ApiKeyView, type ApiKeyStatus, type CreatedApiKey } from './api-keys/api-key-view';
export { serviceAccountProcedures } from './service-accounts/create-service-account-procedures';
export { type ServiceAccountView } from './service-accounts/service-account-view';
export { type RateLimiter, type RateLimitDecision, type TokenBucketSettings } from './rate-limit/rate-limiter';
export { InMemoryRateLimiter, type InMemoryRateLimiterOptions } from './rate-limit/in-memory-rate-limiter';
export { PostgresRateLimiter, pruneIdleRateLimitBuckets } from './rate-limit/postgres-rate-limiter';
export { type RateLimitDatabase } from './rate-limit/sql-runner';
export { Organization, User, Membership, Role, RoleGrant, Invite } from './identity/entities';
export { whoAmIProcedure, WhoAmISchema, type WhoAmI } from './identity/whoami.procedure';
export {
  PERMISSIONS,
  ALL_PERMISSIONS,
  BUILT_IN_ROLES,
  isPermission,
  type Permission,
  type BuiltInRole,
} from './rbac/permission-catalog';
export {
  createSessionVerifier,
  type SessionClaims,
  type SessionVerifier,
  type SessionVerifierOptions,
} from './session/session-verifier';
export {
  resolveSessionPrincipal,
  isPlatformAdminEmail,
  type SessionPrincipalOptions,
} from './session/resolve-session-principal';
export { loadOrganizationAccess, type OrganizationAccess } from './access/organization-access';
export { assertWithinGrantCeiling, permissionsBeyond } from './access/grant-ceiling';
export { addOrganizationMember, type NewMember } from './organizations/memberships';
export { rolesOfOrganization, notifiableUserIds, userIdsByVerifiedEmail } from './directory/directory';
export type { UserNotifier, NotificationScope, NotificationMessage } from './notifier/user-notifier';
export { createAuthzProcedures, type AuthzProcedureDeps } from './procedures/authz-procedures';
export { getMe } from './accounts/me-procedure';
export { createOrganizationProcedures } from './organizations/organization-procedures';
export { createInviteProcedures } from './organizations/invite-procedures';
export { createMemberProcedures } from './organizations/member-procedures';
export { createRoleProcedures } from './rbac/role-procedures';
export { createGrantProcedures } from './rbac/grant-procedures';
export { ROLE_KEY_PATTERN, type RoleView } from './rbac/role-rows';
export { createUserProcedures } from './users/user-procedures';
export { type UserView } from './users/user-rows';
export { createAccountDeletionProcedures, ACCOUNT_DELETION_GRACE_DAYS } from './accounts/deletion-procedures';
export { processDueAccountDeletions } from './accounts/process-account-deletions';
export { createFeatureFlagProcedures } from './feature-flags/feature-flag-procedures';
