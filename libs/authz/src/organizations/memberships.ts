import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, newId, type PrincipalKind } from '@mrp/platform';
import { memberAccessSql, ownerCannotActSql } from '../access/member-access-sql';
import { rethrowUniqueViolation } from '../db/sql-values';

export interface MembershipRow {
  id: string;
  user_id: string;
  kind: PrincipalKind;
  deleted_at: string | null;
}

export async function findMembership(em: EntityManager, organizationId: string, userId: string): Promise<MembershipRow | null> {
  const rows = await em.execute<MembershipRow[]>(
    `SELECT m.id, m.user_id, u.kind, u.deleted_at
       FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = ? AND m.user_id = ?`,
    [organizationId, userId],
  );
  return rows[0] ?? null;
}

export interface NewMember {
  organizationId: string;
  userId: string;
  roleIds: readonly string[];
  grantedBy: string;
}

/** Makes a user (human or service account) a member holding the given roles; returns the membership id. */
export async function addOrganizationMember(em: EntityManager, member: NewMember): Promise<string> {
  const membershipId = newId();
  await em
    .execute('INSERT INTO memberships (id, organization_id, user_id) VALUES (?, ?, ?)', [
      membershipId,
      member.organizationId,
      member.userId,
    ])
    .catch((error: unknown) => rethrowUniqueViolation(error, 'This user is already a member of the organization'));
  for (const roleId of member.roleIds) {
    await em.execute('INSERT INTO role_grants (id, membership_id, role_id, granted_by) VALUES (?, ?, ?, ?)', [
      newId(),
      membershipId,
      roleId,
      member.grantedBy,
    ]);
  }
  return membershipId;
}

/** The role keys a membership holds, sorted. */
export async function membershipRoleKeys(em: EntityManager, membershipId: string): Promise<string[]> {
  const rows = await em.execute<Array<{ key: string }>>(
    `SELECT r.key FROM role_grants g JOIN roles r ON r.id = g.role_id WHERE g.membership_id = ? ORDER BY r.key`,
    [membershipId],
  );
  return rows.map((row) => row.key);
}

/** The permissions a membership's roles carry, sorted. */
export async function membershipPermissions(em: EntityManager, membershipId: string): Promise<string[]> {
  const [access] = await em.execute<Array<{ permissions: string[] }>>(`SELECT access.permissions FROM (${memberAccessSql('?')}) access`, [
    membershipId,
  ]);
  return [...access.permissions].sort();
}

/**
 * Serialises the changes that could leave an organization without an owner (two owners removing
 * each other at once). NO KEY UPDATE so inserts of rows referencing the organization still proceed.
 */
export async function lockOrganization(em: EntityManager, organizationId: string): Promise<void> {
  await em.execute('SELECT id FROM organizations WHERE id = ? FOR NO KEY UPDATE', [organizationId]);
}

/**
 * Takes a share lock on the user's membership in the organization; false when there is none.
 * Writers whose result must die with the membership (a new API key) hold it until they commit:
 * a removal deletes the row, so it waits for them and then revokes what they wrote, or they wait
 * for it and find the membership gone.
 */
export async function lockMembershipForShare(em: EntityManager, organizationId: string, userId: string): Promise<boolean> {
  const rows = await em.execute<Array<{ id: string }>>(
    'SELECT id FROM memberships WHERE organization_id = ? AND user_id = ? FOR SHARE',
    [organizationId, userId],
  );
  return rows.length > 0;
}

/**
 * Refuses a change that would take the `owner` grant of `membershipId` away while no other live
 * human (not disabled, not deleted) holds it: a service account or a locked-out person cannot
 * look after an organization. Call after lockOrganization.
 */
export async function assertNotLastOwner(em: EntityManager, organizationId: string, membershipId: string): Promise<void> {
  const [row] = await em.execute<Array<{ holds: boolean; others: number }>>(
    `SELECT coalesce(bool_or(g.membership_id = ?), false) AS holds,
            count(*) FILTER (WHERE g.membership_id <> ? AND u.kind = 'HUMAN' AND ${ownerCannotActSql('u')} IS NULL)::int
              AS others
       FROM role_grants g
       JOIN roles r ON r.id = g.role_id
       JOIN memberships m ON m.id = g.membership_id
       JOIN users u ON u.id = m.user_id
      WHERE r.organization_id = ? AND r.key = 'owner' AND r.built_in`,
    [membershipId, membershipId, organizationId],
  );
  if (row.holds && row.others === 0) {
    throw conflict('An organization must keep at least one owner who is an active person');
  }
}
