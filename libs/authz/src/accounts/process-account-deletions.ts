import { Type } from '@sinclair/typebox';
import { defineProcedure, sqlTextArray } from '@mrp/platform';
import { createEvent } from '@mrp/events';

/** What the `process-account-deletions` task's principal holds, and nothing else does. */
export const PROCESS_ACCOUNT_DELETIONS = 'system.process-account-deletions';

/** What a deleted account shows where it is still named (an author of old records, a log line). */
export const DELETED_USER_DISPLAY_NAME = 'Deleted user';

/**
 * The `process-account-deletions` task: deletes every account whose grace period has ended. The
 * UPDATE is the claim: a second run at the same time waits on the row lock, then finds
 * `deleted_at` set and skips the row, so each account is deleted (and announced) once.
 *
 * A deleted account keeps its row (ids in records and logs stay resolvable) but loses everything
 * personal: the name becomes "Deleted user", the address one under the reserved `.invalid` domain
 * (unique per account, never deliverable, so the person may come back with the same address under
 * a new identity provider account). Its memberships end (role grants with them), so it shows in
 * no organization; its API keys are revoked and its sessions refused. Events, in the same
 * transaction: `organization.member-removed` per organization left (how each organization's
 * webhooks learn of it: `user.deleted` is routed after the memberships are gone, so only to
 * platform-wide endpoints), then `user.deleted`. Served by the partial index users_deletion_due.
 */
export const processDueDeletions = defineProcedure({
  name: 'accounts.processDueDeletions',
  summary: 'Delete the accounts whose deletion grace period has ended',
  scope: 'system',
  permission: PROCESS_ACCOUNT_DELETIONS,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ processed: Type.Integer({ minimum: 0 }) }),
  async handler(ctx) {
    const deleted = await ctx.em.execute<Array<{ id: string }>>(
      `UPDATE users SET deleted_at = now(), email_verified = false, display_name = ?,
              email = 'deleted-' || md5(id) || '@deleted.invalid', updated_at = now()
        WHERE deletion_scheduled_for <= now() AND deleted_at IS NULL
        RETURNING id`,
      [DELETED_USER_DISPLAY_NAME],
    );
    if (deleted.length === 0) return { processed: 0 };
    const userIds = deleted.map(({ id }) => id).sort();
    const left = await ctx.em.execute<Array<{ user_id: string; organization_id: string }>>(
      'DELETE FROM memberships WHERE user_id = ANY(?::text[]) RETURNING user_id, organization_id',
      [sqlTextArray(userIds)],
    );
    // Refused anyway (their owner is deleted); revoked so that they stay dead whatever comes later.
    await ctx.em.execute('UPDATE api_keys SET revoked_at = now() WHERE owner_user_id = ANY(?::text[]) AND revoked_at IS NULL', [
      sqlTextArray(userIds),
    ]);
    // The person asked for it; the task only waited out the grace period.
    for (const userId of userIds) {
      const organizationIds = left.filter((row) => row.user_id === userId).map((row) => row.organization_id).sort();
      for (const organizationId of organizationIds) {
        ctx.emit(createEvent('organization.member-removed', { organizationId, userId, removedBy: userId }, { organizationId, userId }));
      }
      ctx.emit(createEvent('user.deleted', { userId, deletedBy: userId }, { userId }));
    }
    return { processed: deleted.length };
  },
});
