import { defineProcedure, notFound } from '@mrp/platform';
import { toIso } from '../db/sql-values';
import { OrganizationsCancelInviteInput, OrganizationsListInvitesInput } from './organization-inputs';
import { CanceledInviteSchema, PendingInviteListSchema } from './organization-view';

interface PendingInviteRow {
  id: string;
  email: string;
  role_keys: string[];
  invited_by: string;
  created_at: string;
  expires_at: string;
  expired: boolean;
}

/**
 * The invitations nobody has accepted yet, for the people managing members: who was invited with
 * which roles, and until when the link works. Tokens are stored as hashes only, so a lost link is
 * replaced by inviting the same address again (organizations.invite), never shown again.
 */
export const listInvites = defineProcedure({
  name: 'organizations.listInvites',
  summary: 'The pending (not yet accepted) invitations of the active organization, newest first, expired ones included',
  scope: 'organization',
  permission: 'members.manage',
  readOnly: true,
  input: OrganizationsListInvitesInput,
  output: PendingInviteListSchema,
  async handler(ctx) {
    // Roles deleted since the invite was sent are left out, as accepting would leave them out.
    const rows = await ctx.em.execute<PendingInviteRow[]>(
      `SELECT i.id, i.email, i.invited_by, i.created_at, i.expires_at, i.expires_at <= now() AS expired,
              coalesce(array_agg(r.key ORDER BY r.key) FILTER (WHERE r.key IS NOT NULL), '{}') AS role_keys
         FROM invites i
         LEFT JOIN roles r ON r.organization_id = i.organization_id AND r.id = ANY(i.role_ids)
        WHERE i.organization_id = ? AND i.accepted_at IS NULL
        GROUP BY i.id
        ORDER BY i.created_at DESC, i.id`,
      [ctx.organizationId],
    );
    return {
      items: rows.map((row) => ({
        id: row.id,
        email: row.email,
        roleKeys: row.role_keys,
        invitedBy: row.invited_by,
        createdAt: toIso(row.created_at),
        expiresAt: toIso(row.expires_at),
        expired: row.expired,
      })),
    };
  },
});

export const cancelInvite = defineProcedure({
  name: 'organizations.cancelInvite',
  summary: 'Withdraw a pending invitation: its link stops working',
  scope: 'organization',
  permission: 'members.manage',
  input: OrganizationsCancelInviteInput,
  output: CanceledInviteSchema,
  async handler(ctx, input) {
    const deleted = await ctx.em.execute<Array<{ id: string }>>(
      'DELETE FROM invites WHERE id = ? AND organization_id = ? AND accepted_at IS NULL RETURNING id',
      [input.id, ctx.organizationId],
    );
    if (deleted.length === 0) throw notFound('Invite');
    return { id: input.id, canceled: true as const };
  },
});

export function createPendingInviteProcedures() {
  return [listInvites, cancelInvite];
}
