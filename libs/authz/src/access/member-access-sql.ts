/*
 * The two rules every principal is resolved by, written once as SQL fragments and spliced into
 * the statements that need them (the session's organization access, the API-key lookup, the
 * grant-ceiling checks), so a session and a key of the same person can never disagree.
 *
 * Fragments, not a view: the API-key lookup is one prepared statement that also takes the
 * rate-limit token, and a correlated LATERAL subquery keeps its plan an index lookup per key;
 * a grouped view joined on the owner would be aggregated over every membership first.
 */

/**
 * The SQL texts the fragments accept, and nothing else: they are spliced into the statement, so
 * a value must never reach them (values go in as bind parameters).
 */
export type MembershipIdExpression = 'm.id' | '?';
export type UserRowAlias = 'users' | 'u';

/**
 * Effective access of one membership: the ids of the roles it holds and the union of their
 * permissions, as two arrays (empty when it holds none, or when `membershipId` is NULL: no row
 * is ever missing, so callers join it with `CROSS JOIN LATERAL` or `LEFT JOIN LATERAL … ON true`).
 * `membershipId` is an SQL expression: a column of the outer query or a bind parameter. The
 * grants are found through role_grants' unique (membership_id, role_id) index, and each grant's
 * role by its primary key in a subquery, which no join order can turn into a scan of every role
 * (a join did, in the generic plan, once the statistics said the table was empty).
 */
export function memberAccessSql(membershipId: MembershipIdExpression): string {
  return `SELECT coalesce(array_agg(DISTINCT g.role_id::text ORDER BY g.role_id::text), '{}') AS role_ids,
                 coalesce(array_agg(DISTINCT perm.permission ORDER BY perm.permission)
                            FILTER (WHERE perm.permission IS NOT NULL), '{}') AS permissions
            FROM role_grants g
            LEFT JOIN LATERAL unnest((SELECT r.permissions FROM roles r WHERE r.id = g.role_id)) AS perm(permission) ON true
           WHERE g.membership_id = ${membershipId}`;
}

/** Why a user may not act, by any credential: the value of `ownerCannotActSql`. */
export type CannotAct = 'deleted' | 'disabled' | null;

/**
 * Whether the user of row alias `user` may act at all, by session or by key: NULL when they may,
 * else 'deleted' (self-initiated deletion took effect) or 'disabled' (an administrator's lockout).
 */
export function ownerCannotActSql(user: UserRowAlias): string {
  return `(CASE WHEN ${user}.deleted_at IS NOT NULL THEN 'deleted' WHEN ${user}.disabled_at IS NOT NULL THEN 'disabled' END)`;
}

/**
 * The live access (role_ids, permissions) of the member `userId` of `organizationId` who may act
 * (neither deleted nor disabled): one row, or none. Both are column references of the statement
 * it is spliced into, for other libs' statements that decide per row what a member may read
 * (the webhook outbox, for an endpoint's principal) without a round trip of their own.
 */
export function liveMemberAccessSql(organizationId: string, userId: string): string {
  if (!COLUMN_REFERENCE.test(organizationId) || !COLUMN_REFERENCE.test(userId)) throw new Error('liveMemberAccessSql takes column references only');
  return `SELECT access.role_ids, access.permissions
            FROM memberships m
            JOIN users u ON u.id = m.user_id
            CROSS JOIN LATERAL (${memberAccessSql('m.id')}) access
           WHERE m.organization_id = ${organizationId} AND m.user_id = ${userId} AND ${ownerCannotActSql('u')} IS NULL`;
}

/** `alias.column`, lower case: what liveMemberAccessSql splices, and nothing a value could be. */
const COLUMN_REFERENCE = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;
