import type { FeatureFlagStore } from '@mrp/platform';
import { createAccountDeletionProcedures } from '../accounts/deletion-procedures';
import { meGetProcedure } from '../accounts/me-get-procedure';
import { createFeatureFlagProcedures } from '../feature-flags/feature-flag-procedures';
import type { RowAccessRoles } from '../access/grant-ceiling';
import type { UserNotifier } from '../notifier/user-notifier';
import { createInviteProcedures } from '../organizations/invite-procedures';
import { createMemberProcedures } from '../organizations/member-procedures';
import { createOrganizationProcedures } from '../organizations/organization-procedures';
import { createPendingInviteProcedures } from '../organizations/pending-invite-procedures';
import { pruneRateLimitBuckets } from '../rate-limit/prune-buckets-procedure';
import { createGrantProcedures } from '../rbac/grant-procedures';
import { createRoleProcedures } from '../rbac/role-procedures';
import { createUserProcedures } from '../users/user-procedures';

export interface AuthzProcedureDeps {
  flags: FeatureFlagStore;
  /** Tells people in-app when they are given a role, removed, or their invite is accepted. */
  notifier?: UserNotifier;
  /** Which roles grant row access (data-models'): granting one needs holding it. */
  rowAccessRoles: RowAccessRoles;
  /** ACCOUNT_DELETION_GRACE_DAYS; 30 when not given. */
  accountDeletionGraceDays?: number;
}

/**
 * Every procedure of identity, organizations, RBAC, users and feature flags (DESIGN 3 names), and
 * the system procedures of authz's scheduled tasks.
 */
export function createAuthzProcedures(deps: AuthzProcedureDeps) {
  return [
    meGetProcedure,
    ...createOrganizationProcedures(),
    ...createInviteProcedures(deps),
    ...createPendingInviteProcedures(),
    ...createMemberProcedures(deps),
    ...createRoleProcedures(deps),
    ...createGrantProcedures(deps),
    ...createUserProcedures(),
    ...createAccountDeletionProcedures({ graceDays: deps.accountDeletionGraceDays ?? 30 }),
    ...createFeatureFlagProcedures(deps.flags),
    pruneRateLimitBuckets,
  ];
}
