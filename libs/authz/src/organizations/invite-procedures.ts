import {
  badRequest,
  conflict,
  defineProcedure,
  forbidden,
  newId,
  notFound,
  validationFailed,
} from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { assertWithinGrantCeiling, assertWithinRoleCeiling, type RowAccessRoles } from '../access/grant-ceiling';
import { sqlTextArray, toIso } from '../db/sql-values';
import type { UserNotifier } from '../notifier/user-notifier';
import { INVITE_LIFETIME_DAYS, hashInviteToken, newInviteToken } from './invite-tokens';
import { addOrganizationMember, findMembership } from './memberships';
import { OrganizationsAcceptInviteInput, OrganizationsInviteInput } from './organization-inputs';
import { requireOrganization, toOrganizationView } from './organization-rows';
import { AcceptedInviteSchema, SentInviteSchema } from './organization-view';

interface InvitedRole {
  id: string;
  key: string;
  permissions: string[];
}

interface InviteRow {
  id: string;
  organization_id: string;
  email: string;
  role_ids: string[];
  invited_by: string;
  accepted_at: string | null;
  expired: boolean;
}

export function createInviteProcedures(deps: { notifier?: UserNotifier; rowAccessRoles: RowAccessRoles }) {
  const invite = defineProcedure({
    name: 'organizations.invite',
    summary: 'Invite someone by email; the invite token is returned once',
    scope: 'organization',
    permission: 'members.manage',
    input: OrganizationsInviteInput,
    output: SentInviteSchema,
    async handler(ctx, input) {
      const email = input.email.toLowerCase();
      const roleKeys = [...(input.roleKeys ?? ['member'])].sort();
      const roles = await ctx.em.execute<InvitedRole[]>(
        'SELECT id, key, permissions FROM roles WHERE organization_id = ? AND key = ANY(?::text[])',
        [ctx.organizationId, sqlTextArray(roleKeys)],
      );
      const unknown = roleKeys.filter((key) => !roles.some((role) => role.key === key));
      if (unknown.length > 0) {
        throw validationFailed(
          unknown.map((key) => ({ field: 'roleKeys', code: 'invalid_option', message: `unknown role "${key}"` })),
          `Unknown roles: ${unknown.join(', ')}`,
        );
      }
      assertWithinGrantCeiling(ctx.principal, roles.flatMap((role) => role.permissions), 'invite with');
      await assertWithinRoleCeiling(ctx.em, deps.rowAccessRoles, ctx.principal, ctx.organizationId, roles.map((role) => role.id), 'grant', 'invite with');

      const [alreadyMember] = await ctx.em.execute<Array<{ user_id: string }>>(
        `SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.organization_id = ? AND lower(u.email) = ? AND u.email_verified AND u.deleted_at IS NULL`,
        [ctx.organizationId, email],
      );
      if (alreadyMember) throw conflict(`${email} is already a member of this organization`);

      // Re-inviting replaces the pending invite: only the newest link works.
      await ctx.em.execute('DELETE FROM invites WHERE organization_id = ? AND email = ? AND accepted_at IS NULL', [
        ctx.organizationId,
        email,
      ]);
      const token = newInviteToken();
      const inviteId = newId();
      const [created] = await ctx.em.execute<Array<{ expires_at: string }>>(
        `INSERT INTO invites (id, organization_id, email, role_ids, token_hash, invited_by, expires_at)
         VALUES (?, ?, ?, ?::uuid[], ?, ?, now() + make_interval(days => ?))
         RETURNING expires_at`,
        [
          inviteId,
          ctx.organizationId,
          email,
          sqlTextArray(roles.map((role) => role.id)),
          hashInviteToken(token),
          ctx.principal.userId,
          INVITE_LIFETIME_DAYS,
        ],
      );
      ctx.emit(
        createEvent(
          'organization.invite-sent',
          { organizationId: ctx.organizationId, inviteId, email, roleKeys, invitedBy: ctx.principal.userId },
          { organizationId: ctx.organizationId },
        ),
      );
      return { invite: { id: inviteId, email, roleKeys, expiresAt: toIso(created.expires_at) }, token };
    },
  });

  const acceptInvite = defineProcedure({
    name: 'organizations.acceptInvite',
    summary: 'Join an organization with an invite token sent to your email address',
    scope: 'user',
    permission: null,
    input: OrganizationsAcceptInviteInput,
    output: AcceptedInviteSchema,
    async handler(ctx, input) {
      if (ctx.principal.kind !== 'HUMAN') throw forbidden('Service accounts cannot accept invites');
      // FOR UPDATE: two tabs accepting the same link at once must not both join.
      const [row] = await ctx.em.execute<InviteRow[]>(
        `SELECT id, organization_id, email, role_ids::text[] AS role_ids, invited_by, accepted_at, expires_at <= now() AS expired
           FROM invites WHERE token_hash = ? FOR UPDATE`,
        [hashInviteToken(input.token)],
      );
      if (!row) throw notFound('Invite');
      // Bound to the address the identity provider vouches for in this session, never a stored one.
      const credential = ctx.principal.credential;
      const verifiedEmail = credential.type === 'session' ? credential.verifiedEmail : undefined;
      if (verifiedEmail === undefined) throw forbidden('This invite needs an email address your identity provider has verified');
      if (row.email !== verifiedEmail) throw forbidden('This invite was sent to a different email address');
      if (row.accepted_at) throw conflict('This invite has already been used');
      if (row.expired) throw badRequest('This invite has expired; ask for a new one');
      if (await findMembership(ctx.em, row.organization_id, ctx.principal.userId)) {
        throw conflict('You are already a member of this organization');
      }

      // Roles deleted since the invite was sent are simply not granted.
      const roles = await ctx.em.execute<Array<{ id: string; key: string }>>(
        'SELECT id, key FROM roles WHERE organization_id = ? AND id = ANY(?::uuid[]) ORDER BY key',
        [row.organization_id, sqlTextArray(row.role_ids)],
      );
      await addOrganizationMember(ctx.em, {
        organizationId: row.organization_id,
        userId: ctx.principal.userId,
        roleIds: roles.map((role) => role.id),
        grantedBy: row.invited_by,
      });
      await ctx.em.execute('UPDATE invites SET accepted_at = now(), accepted_by = ? WHERE id = ?', [
        ctx.principal.userId,
        row.id,
      ]);

      const roleKeys = roles.map((role) => role.key);
      // About the organization and about the person who joined it.
      const scope = { organizationId: row.organization_id, userId: ctx.principal.userId };
      ctx.emit(
        createEvent(
          'organization.invite-accepted',
          { organizationId: row.organization_id, inviteId: row.id, userId: ctx.principal.userId },
          scope,
        ),
      );
      ctx.emit(
        createEvent(
          'organization.member-joined',
          { organizationId: row.organization_id, userId: ctx.principal.userId, roleKeys },
          scope,
        ),
      );
      const organization = await requireOrganization(ctx.em, row.organization_id);
      await deps.notifier?.notify(ctx, [row.invited_by], {
        kind: 'organization.invite-accepted',
        title: `${ctx.principal.displayName} joined ${organization.name}`,
        data: { organizationId: organization.id, userId: ctx.principal.userId },
        organizationId: organization.id,
      });
      return { organization: toOrganizationView(organization), roleKeys };
    },
  });

  return [invite, acceptInvite];
}
