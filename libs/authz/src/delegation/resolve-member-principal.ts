import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuidString, type Credential, type Principal, type PrincipalKind } from '@mrp/platform';
import { memberAccessSql, ownerCannotActSql, type CannotAct } from '../access/member-access-sql';

/** Why a member cannot be acted as: they are gone, locked out, or no longer in the organization. */
export type MemberCannotAct = 'unknown' | 'deleted' | 'disabled' | 'not-member';

export type MemberPrincipalResult = { principal: Principal } | { cannotAct: MemberCannotAct };

interface MemberRow {
  id: string;
  kind: PrincipalKind;
  email: string;
  display_name: string;
  cannot_act: CannotAct;
  /** NULL when the user is not a member of the organization. */
  membership_id: string | null;
  role_ids: string[];
  permissions: string[];
}

/**
 * The principal of work done on a member's behalf (an automation run acting as its owner), from
 * live rows and by the rules a session or a key of the same member meets: a deleted or disabled
 * account, or one no longer a member, cannot act; permissions are the member's current roles'.
 * It is never a platform admin: that comes only from a session's verified claim.
 */
export async function resolveMemberPrincipal(
  em: EntityManager,
  userId: string,
  organizationId: string,
  credential: Credential,
): Promise<MemberPrincipalResult> {
  // The user and their access in the organization in one round trip: it runs once per automation run.
  const [user] = await em.execute<MemberRow[]>(
    `SELECT u.id, u.kind, u.email, u.display_name, ${ownerCannotActSql('u')} AS cannot_act,
            m.id AS membership_id, access.role_ids, access.permissions
       FROM users u
       LEFT JOIN memberships m ON m.organization_id = ?::uuid AND m.user_id = u.id
       CROSS JOIN LATERAL (${memberAccessSql('m.id')}) access
      WHERE u.id = ?`,
    // Not a uuid cannot name an organization: asking PostgreSQL would be a cast error, not a miss.
    [isUuidString(organizationId) ? organizationId : null, userId],
  );
  if (!user) return { cannotAct: 'unknown' };
  if (user.cannot_act) return { cannotAct: user.cannot_act };
  if (!user.membership_id) return { cannotAct: 'not-member' };
  return {
    principal: {
      userId: user.id,
      kind: user.kind,
      email: user.email,
      displayName: user.display_name,
      isPlatformAdmin: false,
      organizationId,
      roleIds: [...user.role_ids].sort(),
      permissions: new Set(user.permissions),
      credential,
    },
  };
}
