import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuidString } from '@mrp/platform';

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
 * is not a member. One query on the hot path of every call: the membership (unique index on
 * organization_id, user_id), its grants (unique index on membership_id, role_id) and the roles.
 */
export async function loadOrganizationAccess(
  em: EntityManager,
  userId: string,
  organizationId: string,
): Promise<OrganizationAccess | null> {
  // Not a uuid cannot name an organization; asking PostgreSQL would be a cast error, not a miss.
  if (!isUuidString(organizationId)) return null;
  const rows = await em.execute<AccessRow[]>(
    `SELECT m.id AS membership_id,
            coalesce(array_agg(DISTINCT r.id::text) FILTER (WHERE r.id IS NOT NULL), '{}') AS role_ids,
            coalesce(array_agg(DISTINCT perm.permission) FILTER (WHERE perm.permission IS NOT NULL), '{}') AS permissions
       FROM memberships m
       LEFT JOIN role_grants g ON g.membership_id = m.id
       LEFT JOIN roles r ON r.id = g.role_id
       LEFT JOIN LATERAL unnest(r.permissions) AS perm(permission) ON true
      WHERE m.organization_id = ? AND m.user_id = ?
      GROUP BY m.id`,
    [organizationId, userId],
  );
  const row = rows[0];
  if (!row) return null;
  return { membershipId: row.membership_id, roleIds: [...row.role_ids].sort(), permissions: [...row.permissions].sort() };
}
