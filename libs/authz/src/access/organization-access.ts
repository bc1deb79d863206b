import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuidString } from '@mrp/platform';
import { memberAccessSql } from './member-access-sql';

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
