import { Type } from '@sinclair/typebox';
import { defineProcedure } from '@mrp/platform';
import { createEvent } from '@mrp/events';

/** What the `process-account-deletions` task's principal holds, and nothing else does. */
export const PROCESS_ACCOUNT_DELETIONS = 'system.process-account-deletions';

/**
 * The `process-account-deletions` task: marks every account whose grace period has ended as
 * deleted (sessions and API keys of a deleted account are refused from then on) and releases its
 * address: it stops counting as vouched for, so the person may come back under a new identity
 * provider account (a new `sub`) with the same address. Each deletion emits `user.deleted`, in
 * the same transaction. Idempotent; served by the partial index users_deletion_due.
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
      `UPDATE users SET deleted_at = now(), email_verified = false, updated_at = now()
        WHERE deletion_scheduled_for <= now() AND deleted_at IS NULL
        RETURNING id`,
    );
    // The person asked for it; the task only waited out the grace period.
    for (const { id } of deleted.sort((a, b) => a.id.localeCompare(b.id))) {
      ctx.emit(createEvent('user.deleted', { userId: id, deletedBy: id }, { userId: id }));
    }
    return { processed: deleted.length };
  },
});
