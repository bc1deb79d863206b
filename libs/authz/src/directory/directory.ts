import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuidString, sqlTextArray } from '@mrp/platform';
import { memberAccessSql, ownerCannotActSql } from '../access/member-access-sql';

/**
 * What other libs may ask about authz's people and roles. They call these instead of reading
 * authz's tables, so the rules (who counts as a live person, what "in this organization" means)
 * stay here.
 */

/** The ids among `roleIds` that name a role of the organization. */
export async function rolesOfOrganization(em: EntityManager, organizationId: string, roleIds: readonly string[]): Promise<Set<string>> {
  if (roleIds.length === 0) return new Set();
  const rows = await em.execute<Array<{ id: string }>>(
    'SELECT id FROM roles WHERE organization_id = ? AND id = ANY(?::uuid[])',
    [organizationId, sqlTextArray(roleIds)],
  );
  return new Set(rows.map((row) => row.id));
}

/** The users among `userIds` who can receive notifications: people (never service accounts) whose account is not deleted. */
export async function notifiableUserIds(em: EntityManager, userIds: readonly string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await em.execute<Array<{ id: string }>>(
    `SELECT id FROM users WHERE id = ANY(?::text[]) AND kind = 'HUMAN' AND deleted_at IS NULL`,
    [sqlTextArray(userIds)],
  );
  return rows.map((row) => row.id);
}

/** Of `userIds`, those whose account is deleted or does not exist (sorted): what may no longer be shown or reached. */
export async function deletedUserIds(em: EntityManager, userIds: readonly string[]): Promise<string[]> {
  const asked = [...new Set(userIds)];
  if (asked.length === 0) return [];
  const live = await em.execute<Array<{ id: string }>>('SELECT id FROM users WHERE id = ANY(?::text[]) AND deleted_at IS NULL', [
    sqlTextArray(asked),
  ]);
  const liveIds = new Set(live.map((row) => row.id));
  return asked.filter((id) => !liveIds.has(id)).sort();
}

/**
 * The address of each of `userIds` that may be emailed: live people only (never service accounts,
 * never deleted accounts, whose address is a placeholder). Disabled people still hear about their account.
 */
export async function emailAddressesOf(em: EntityManager, userIds: readonly string[]): Promise<Map<string, string>> {
  const addresses = new Map<string, string>();
  if (userIds.length === 0) return addresses;
  const rows = await em.execute<Array<{ id: string; email: string }>>(
    `SELECT id, email FROM users WHERE id = ANY(?::text[]) AND kind = 'HUMAN' AND deleted_at IS NULL`,
    [sqlTextArray([...new Set(userIds)])],
  );
  for (const row of rows) addresses.set(row.id, row.email);
  return addresses;
}

/**
 * Of `userIds`, the members of the organization who may act (not disabled, not deleted) and hold
 * `permission` there now, each with the ids of the roles they hold (for row-level access): what
 * work done on a member's behalf without a request of theirs (a reminder) asks before it reveals
 * anything. The same rules as every session and key (member-access-sql).
 */
export async function membersHolding(
  em: EntityManager,
  organizationId: string,
  userIds: readonly string[],
  permission: string,
): Promise<Map<string, string[]>> {
  const holders = new Map<string, string[]>();
  if (userIds.length === 0 || !isUuidString(organizationId)) return holders;
  const rows = await em.execute<Array<{ user_id: string; role_ids: string[] }>>(
    `SELECT m.user_id, access.role_ids
       FROM memberships m
       JOIN users u ON u.id = m.user_id
       CROSS JOIN LATERAL (${memberAccessSql('m.id')}) access
      WHERE m.organization_id = ? AND m.user_id = ANY(?::text[])
        AND ${ownerCannotActSql('u')} IS NULL
        AND ? = ANY(access.permissions)`,
    [organizationId, sqlTextArray([...new Set(userIds)]), permission],
  );
  for (const row of rows) holders.set(row.user_id, [...row.role_ids].sort());
  return holders;
}

/**
 * Ids of the accounts holding these addresses, compared without case. Only an address the
 * identity provider vouched for is anyone's (users_verified_email_unique, on lower(email) WHERE
 * email_verified): an index lookup per address.
 */
export async function userIdsByVerifiedEmail(em: EntityManager, emails: readonly string[]): Promise<string[]> {
  if (emails.length === 0) return [];
  const rows = await em.execute<Array<{ id: string }>>('SELECT id FROM users WHERE lower(email) = ANY(?::text[]) AND email_verified', [
    sqlTextArray(emails.map((email) => email.toLowerCase())),
  ]);
  return rows.map((row) => row.id);
}

/** The organizations any of `userIds` is a member of, oldest first. */
export async function organizationsOfMembers(
  em: EntityManager,
  userIds: readonly string[],
): Promise<Array<{ id: string; name: string; slug: string }>> {
  if (userIds.length === 0) return [];
  return em.execute<Array<{ id: string; name: string; slug: string }>>(
    `SELECT o.id, o.name, o.slug FROM organizations o
      WHERE EXISTS (SELECT 1 FROM memberships m WHERE m.organization_id = o.id AND m.user_id = ANY(?::text[]))
      ORDER BY o.created_at, o.id`,
    [sqlTextArray(userIds)],
  );
}

/** Each user's member organizations, for routing events about a user to the organizations it belongs to. */
export async function memberOrganizationIds(em: EntityManager, userIds: readonly string[]): Promise<Map<string, string[]>> {
  const byUser = new Map<string, string[]>();
  if (userIds.length === 0) return byUser;
  const rows = await em.execute<Array<{ user_id: string; organization_id: string }>>(
    'SELECT user_id, organization_id FROM memberships WHERE user_id = ANY(?::text[])',
    [sqlTextArray(userIds)],
  );
  for (const row of rows) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row.organization_id]);
  return byUser;
}

/**
 * The members of the organization among `userIds`, together with every member holding the role
 * `roleKey` when one is named; null when the organization has no role with that key. Sorted.
 */
export async function organizationMemberIds(
  em: EntityManager,
  organizationId: string,
  { userIds = [], roleKey }: { userIds?: readonly string[]; roleKey?: string },
): Promise<string[] | null> {
  if (roleKey !== undefined) {
    const roles = await em.execute<Array<{ id: string }>>('SELECT id FROM roles WHERE organization_id = ? AND key = ?', [organizationId, roleKey]);
    if (roles.length === 0) return null;
  }
  const rows = await em.execute<Array<{ user_id: string }>>(
    `SELECT m.user_id FROM memberships m
      WHERE m.organization_id = ?
        AND (m.user_id = ANY(?::text[])
             OR EXISTS (SELECT 1 FROM role_grants g JOIN roles r ON r.id = g.role_id
                         WHERE g.membership_id = m.id AND r.key = ?))
      ORDER BY m.user_id`,
    [organizationId, sqlTextArray(userIds), roleKey ?? null],
  );
  return rows.map((row) => row.user_id);
}
