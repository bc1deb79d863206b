import type { EntityManager } from '@mikro-orm/postgresql';
import type { Credential, Principal, PrincipalKind } from '@mrp/platform';
import { ownerCannotActSql, type CannotAct } from '../access/member-access-sql';
import { loadOrganizationAccess } from '../access/organization-access';

/** Why a member cannot be acted as: they are gone, locked out, or no longer in the organization. */
export type MemberCannotAct = 'unknown' | 'deleted' | 'disabled' | 'not-member';

export type MemberPrincipalResult = { principal: Principal } | { cannotAct: MemberCannotAct };

interface MemberRow {
  id: string;
  kind: PrincipalKind;
  email: string;
  display_name: string;
  cannot_act: CannotAct;
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
  const [user] = await em.execute<MemberRow[]>(
    `SELECT id, kind, email, display_name, ${ownerCannotActSql('users')} AS cannot_act FROM users WHERE id = ?`,
    [userId],
  );
  if (!user) return { cannotAct: 'unknown' };
  if (user.cannot_act) return { cannotAct: user.cannot_act };
  const access = await loadOrganizationAccess(em, user.id, organizationId);
  if (!access) return { cannotAct: 'not-member' };
  return {
    principal: {
      userId: user.id,
      kind: user.kind,
      email: user.email,
      displayName: user.display_name,
      isPlatformAdmin: false,
      organizationId,
      roleIds: access.roleIds,
      permissions: new Set(access.permissions),
      credential,
    },
  };
}
