import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, isUuidString, preparedStatement, sqlTextArray } from '@mrp/platform';
import { memberAccessSql, ownerCannotActSql } from './member-access-sql';

export interface OrganizationAccess {
  membershipId: string;
  roleIds: string[];
  /** Union of the permissions of every role the member currently holds, sorted. */
  permissions: string[];
}

interface AccessRow {
  membership_id: string;
  role_ids: string[];
  permissions: string[];
}

/**
 * A member's live role ids and effective permissions in one organization, or null when the user
 * is not a member (a human or a service account alike). One query on the hot path of every call:
 * the membership by its unique (organization_id, user_id) index, then its access.
 */
export async function loadOrganizationAccess(
  em: EntityManager,
  userId: string,
  organizationId: string,
): Promise<OrganizationAccess | null> {
  // Not a uuid cannot name an organization; asking PostgreSQL would be a cast error, not a miss.
  if (!isUuidString(organizationId)) return null;
  const rows = await em.execute<AccessRow[]>(
    `SELECT m.id AS membership_id, access.role_ids, access.permissions
       FROM memberships m
       CROSS JOIN LATERAL (${memberAccessSql('m.id')}) access
      WHERE m.organization_id = ? AND m.user_id = ?`,
    [organizationId, userId],
  );
  const row = rows[0];
  if (!row) return null;
  return { membershipId: row.membership_id, roleIds: [...row.role_ids].sort(), permissions: [...row.permissions].sort() };
}

// Prepared: the webhook outbox asks it in the transaction of every record write whose event an
// endpoint subscribes to, and planning the lateral aggregate costs more than running it.
// Parameters: organization, user ids.
const MEMBERS_ACCESS = preparedStatement(
  `SELECT m.user_id, access.role_ids, access.permissions
     FROM memberships m
     JOIN users u ON u.id = m.user_id
     CROSS JOIN LATERAL (${memberAccessSql('m.id')}) access
    WHERE m.organization_id = $1::uuid AND m.user_id = ANY($2::text[]) AND ${ownerCannotActSql('u')} IS NULL`,
  { purpose: "members' live access (webhook endpoint principals)", indexes: ['memberships_organization_id_user_id_key', 'users_pkey', 'role_grants_membership_id_role_id_key', 'roles_pkey'] },
);

/**
 * The live role ids and permissions of those of `userIds` who may act in the organization (a
 * member, neither deleted nor disabled), in one statement; the others are absent.
 */
export async function loadMembersAccess(
  em: EntityManager,
  organizationId: string,
  userIds: readonly string[],
): Promise<Map<string, { roleIds: string[]; permissions: string[] }>> {
  if (!isUuidString(organizationId) || userIds.length === 0) return new Map();
  const rows = await executePrepared<AccessRow & { user_id: string }>(em, MEMBERS_ACCESS, [organizationId, sqlTextArray(userIds)]);
  return new Map(rows.map((row) => [row.user_id, { roleIds: row.role_ids, permissions: row.permissions }]));
}
