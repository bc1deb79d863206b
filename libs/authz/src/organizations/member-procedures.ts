import { defineProcedure, notFound } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { assertWithinGrantCeiling } from '../access/grant-ceiling';
import type { UserNotifier } from '../notifier/user-notifier';
import { assertNotLastOwner, findMembership, lockOrganization, membershipPermissions } from './memberships';
import { OrganizationsRemoveMemberInput } from './organization-inputs';
import { requireOrganization } from './organization-rows';
import { RemovedMemberSchema } from './organization-view';

export function createMemberProcedures(deps: { notifier?: UserNotifier } = {}) {
  const removeMember = defineProcedure({
    name: 'organizations.removeMember',
    summary: 'Remove a member (human or service account) and their role grants from the organization',
    scope: 'organization',
    permission: 'members.manage',
    input: OrganizationsRemoveMemberInput,
    output: RemovedMemberSchema,
    async handler(ctx, input) {
      await lockOrganization(ctx.em, ctx.organizationId);
      const membership = await findMembership(ctx.em, ctx.organizationId, input.userId);
      if (!membership) throw notFound('Member');
      // Removing someone takes their authority away: an admin cannot remove an owner.
      assertWithinGrantCeiling(ctx.principal, await membershipPermissions(ctx.em, membership.id), 'remove a member holding');
      await assertNotLastOwner(ctx.em, ctx.organizationId, membership.id);
      // Deleted before the keys are revoked: a key being created holds a share lock on this row
      // (lockMembershipForShare), so the DELETE waits for it to commit and the revoke below sees it.
      await ctx.em.execute('DELETE FROM memberships WHERE id = ?', [membership.id]);
      // Their keys for this organization die with the membership: being invited back later must
      // not silently revive credentials minted under the old membership.
      await ctx.em.execute(
        'UPDATE api_keys SET revoked_at = now() WHERE organization_id = ? AND owner_user_id = ? AND revoked_at IS NULL',
        [ctx.organizationId, input.userId],
      );

      ctx.emit(
        createEvent(
          'organization.member-removed',
          { organizationId: ctx.organizationId, userId: input.userId, removedBy: ctx.principal.userId },
          { organizationId: ctx.organizationId, userId: input.userId },
        ),
      );
      // Notifications are never sent to service accounts.
      if (input.userId !== ctx.principal.userId && membership.kind === 'HUMAN') {
        const organization = await requireOrganization(ctx.em, ctx.organizationId);
        await deps.notifier?.notify(ctx, [input.userId], {
          kind: 'organization.member-removed',
          title: `You were removed from ${organization.name}`,
          data: { organizationId: organization.id },
          organizationId: organization.id,
        });
      }
      return { userId: input.userId, removed: true as const };
    },
  });
  return [removeMember];
}
