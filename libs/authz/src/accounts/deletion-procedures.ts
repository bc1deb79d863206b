import { defineProcedure, forbidden, notFound } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { toIso } from '../db/sql-values';
import { OwnAccountInput } from '../users/user-inputs';
import { USER_COLUMNS, UserViewSchema, findUser, toUserView, type UserRow } from '../users/user-rows';
import { processDueDeletions } from './process-account-deletions';

export interface AccountDeletionDeps {
  /**
   * ACCOUNT_DELETION_GRACE_DAYS: between asking for deletion and the account being deleted;
   * canceling is possible until then. 0: deleted at the next run of the task.
   */
  graceDays: number;
}

const requestDeletion = ({ graceDays }: AccountDeletionDeps) => defineProcedure({
  name: 'users.requestDeletion',
  summary: 'Schedule your account for deletion at the end of the grace period (ACCOUNT_DELETION_GRACE_DAYS, 30 days unless configured)',
  scope: 'user',
  permission: null,
  input: OwnAccountInput,
  output: UserViewSchema,
  async handler(ctx) {
    if (ctx.principal.kind !== 'HUMAN') throw forbidden('Service accounts are deleted through serviceAccounts.delete');
    const user = await findUser(ctx.em, ctx.principal.userId, { forUpdate: true });
    if (!user) throw notFound('User');
    // Asking twice keeps the first date: the grace period does not restart.
    if (user.deletion_scheduled_for) return toUserView(user);
    const [updated] = await ctx.em.execute<UserRow[]>(
      `UPDATE users SET deletion_scheduled_for = now() + make_interval(days => ?), updated_at = now()
        WHERE id = ? RETURNING ${USER_COLUMNS}`,
      [graceDays, user.id],
    );
    ctx.emit(
      createEvent(
        'user.deletion-requested',
        { userId: user.id, scheduledFor: toIso(updated.deletion_scheduled_for as string) },
        { userId: user.id },
      ),
    );
    return toUserView(updated);
  },
});

const cancelDeletion = defineProcedure({
  name: 'users.cancelDeletion',
  summary: 'Cancel the scheduled deletion of your account',
  scope: 'user',
  permission: null,
  input: OwnAccountInput,
  output: UserViewSchema,
  async handler(ctx) {
    if (ctx.principal.kind !== 'HUMAN') throw forbidden('Service accounts have no scheduled deletion');
    const user = await findUser(ctx.em, ctx.principal.userId, { forUpdate: true });
    if (!user) throw notFound('User');
    if (!user.deletion_scheduled_for) return toUserView(user);
    const [updated] = await ctx.em.execute<UserRow[]>(
      `UPDATE users SET deletion_scheduled_for = NULL, updated_at = now() WHERE id = ? RETURNING ${USER_COLUMNS}`,
      [user.id],
    );
    ctx.emit(createEvent('user.deletion-canceled', { userId: user.id }, { userId: user.id }));
    return toUserView(updated);
  },
});

export function createAccountDeletionProcedures(deps: AccountDeletionDeps) {
  return [requestDeletion(deps), cancelDeletion, processDueDeletions];
}
