import type { EntityManager } from '@mikro-orm/postgresql';
import { defineProcedure, newId, notFound } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { assertWithinGrantCeiling, assertWithinRoleCeiling, type RowAccessRoles } from '../access/grant-ceiling';
import type { UserNotifier } from '../notifier/user-notifier';
import {
  assertNotLastOwner,
  findMembership,
  lockOrganization,
  membershipRoleKeys,
  type MembershipRow,
} from '../organizations/memberships';
import { requireOrganization } from '../organizations/organization-rows';
import { RoleGrantInput } from './rbac-inputs';
import { requireRoleByKey } from './role-rows';
import { MemberRolesSchema } from './role-view';

async function requireMember(em: EntityManager, organizationId: string, userId: string): Promise<MembershipRow> {
  const membership = await findMembership(em, organizationId, userId);
  if (!membership || membership.deleted_at) throw notFound('Member');
  return membership;
}

export function createGrantProcedures(deps: { notifier?: UserNotifier; rowAccessRoles: RowAccessRoles }) {
  const assign = defineProcedure({
    name: 'rbac.roles.assign',
    summary: 'Give a member (human or service account) a role; idempotent',
    scope: 'organization',
    permission: 'rbac.manage',
    input: RoleGrantInput,
    output: MemberRolesSchema,
    async handler(ctx, input) {
      const membership = await requireMember(ctx.em, ctx.organizationId, input.userId);
      const role = await requireRoleByKey(ctx.em, ctx.organizationId, input.roleKey);
      assertWithinGrantCeiling(ctx.principal, role.permissions, 'grant');
      await assertWithinRoleCeiling(ctx.em, deps.rowAccessRoles, ctx.principal, ctx.organizationId, [role.id], 'grant', 'grant');
      const inserted = await ctx.em.execute<Array<{ id: string }>>(
        `INSERT INTO role_grants (id, membership_id, role_id, granted_by) VALUES (?, ?, ?, ?)
         ON CONFLICT (membership_id, role_id) DO NOTHING RETURNING id`,
        [newId(), membership.id, role.id, ctx.principal.userId],
      );
      if (inserted.length > 0) {
        ctx.emit(
          createEvent(
            'rbac.role-assigned',
            {
              organizationId: ctx.organizationId,
              roleId: role.id,
              roleKey: role.key,
              userId: input.userId,
              assignedBy: ctx.principal.userId,
            },
            { organizationId: ctx.organizationId, userId: input.userId },
          ),
        );
        // Notifications are never sent to service accounts.
        if (input.userId !== ctx.principal.userId && membership.kind === 'HUMAN') {
          const organization = await requireOrganization(ctx.em, ctx.organizationId);
          await deps.notifier?.notify(ctx, [input.userId], {
            kind: 'rbac.role-assigned',
            title: `You now have the role ${role.name} in ${organization.name}`,
            data: { organizationId: organization.id, roleKey: role.key },
            organizationId: organization.id,
          });
        }
      }
      return { userId: input.userId, roleKeys: await membershipRoleKeys(ctx.em, membership.id) };
    },
  });

  const revoke = defineProcedure({
    name: 'rbac.roles.revoke',
    summary: "Take a role from a member; idempotent; the organization's last owner keeps theirs",
    scope: 'organization',
    permission: 'rbac.manage',
    input: RoleGrantInput,
    output: MemberRolesSchema,
    async handler(ctx, input) {
      await lockOrganization(ctx.em, ctx.organizationId);
      const membership = await requireMember(ctx.em, ctx.organizationId, input.userId);
      const role = await requireRoleByKey(ctx.em, ctx.organizationId, input.roleKey);
      // Symmetric to granting: an admin cannot demote an owner.
      assertWithinGrantCeiling(ctx.principal, role.permissions, 'revoke');
      if (role.built_in && role.key === 'owner') await assertNotLastOwner(ctx.em, ctx.organizationId, membership.id);
      const deleted = await ctx.em.execute<Array<{ id: string }>>(
        'DELETE FROM role_grants WHERE membership_id = ? AND role_id = ? RETURNING id',
        [membership.id, role.id],
      );
      if (deleted.length > 0) {
        ctx.emit(
          createEvent(
            'rbac.role-revoked',
            {
              organizationId: ctx.organizationId,
              roleId: role.id,
              roleKey: role.key,
              userId: input.userId,
              revokedBy: ctx.principal.userId,
            },
            { organizationId: ctx.organizationId, userId: input.userId },
          ),
        );
      }
      return { userId: input.userId, roleKeys: await membershipRoleKeys(ctx.em, membership.id) };
    },
  });

  return [assign, revoke];
}
