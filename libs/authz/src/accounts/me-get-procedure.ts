import { defineProcedure, notFound } from '@mrp/platform';
import { toIso } from '../db/sql-values';
import { findUser } from '../users/user-rows';
import { MeGetInput } from './account-inputs';
import { MeSchema } from './me-view';

interface MembershipSummaryRow {
  id: string;
  name: string;
  slug: string;
  role_keys: string[];
}

export const meGetProcedure = defineProcedure({
  name: 'me.get',
  summary: 'Who you are, your organizations and your permissions in the active one',
  scope: 'user',
  permission: null,
  readOnly: true,
  input: MeGetInput,
  output: MeSchema,
  async handler(ctx) {
    const { principal } = ctx;
    const user = await findUser(ctx.em, principal.userId);
    if (!user) throw notFound('User');
    const organizations = await ctx.em.execute<MembershipSummaryRow[]>(
      `SELECT o.id, o.name, o.slug,
              coalesce(array_agg(r.key ORDER BY r.key) FILTER (WHERE r.key IS NOT NULL), '{}') AS role_keys
         FROM memberships m
         JOIN organizations o ON o.id = m.organization_id
         LEFT JOIN role_grants g ON g.membership_id = m.id
         LEFT JOIN roles r ON r.id = g.role_id
        WHERE m.user_id = ?
        GROUP BY o.id
        ORDER BY o.name, o.id`,
      [principal.userId],
    );
    return {
      user: {
        id: user.id,
        kind: user.kind,
        email: user.email,
        displayName: user.display_name,
        isPlatformAdmin: principal.isPlatformAdmin,
        deletionScheduledFor: toIso(user.deletion_scheduled_for),
      },
      organizations: organizations.map((row) => ({ id: row.id, name: row.name, slug: row.slug, roleKeys: row.role_keys })),
      // The principal's permissions: for a limited API key already narrowed to its allowlist.
      activeOrganization: principal.organizationId
        ? { id: principal.organizationId, roleIds: [...principal.roleIds], permissions: [...principal.permissions].sort() }
        : null,
    };
  },
});
