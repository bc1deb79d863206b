import type { EntityManager } from '@mikro-orm/postgresql';
import { defineProcedure, forbidden, notFound, validationFailed } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { EMAIL_BELONGS_TO_PROVIDER, TargetUserInput, UsersUpdateProfileInput } from './user-inputs';
import { USER_COLUMNS, UserViewSchema, findUser, toUserView, type UserRow } from './user-rows';

export const updateProfile = defineProcedure({
  name: 'users.updateProfile',
  summary: 'Change your display name (your email address belongs to your identity provider)',
  scope: 'user',
  permission: null,
  input: UsersUpdateProfileInput,
  output: UserViewSchema,
  async handler(ctx, input) {
    if (input.email !== undefined) {
      throw validationFailed(
        [{ field: 'email', code: 'read_only', message: EMAIL_BELONGS_TO_PROVIDER }],
        'The email address belongs to your identity provider',
      );
    }
    if (ctx.principal.kind !== 'HUMAN') throw forbidden('Service accounts are changed through serviceAccounts.update');
    const current = await findUser(ctx.em, ctx.principal.userId, { forUpdate: true });
    if (!current) throw notFound('User');
    const displayName = input.displayName === undefined ? current.display_name : input.displayName.trim();
    if (!displayName) throw validationFailed([{ field: 'displayName', code: 'required', message: 'must not be blank' }]);
    if (displayName === current.display_name) return toUserView(current);

    const [updated] = await ctx.em.execute<UserRow[]>(
      `UPDATE users SET display_name = ?, updated_at = now() WHERE id = ? RETURNING ${USER_COLUMNS}`,
      [displayName, current.id],
    );
    ctx.emit(createEvent('user.profile-updated', { userId: current.id, changes: ['displayName'] }, { userId: current.id }));
    return toUserView(updated);
  },
});

async function requireLiveUser(em: EntityManager, userId: string): Promise<UserRow> {
  const user = await findUser(em, userId, { forUpdate: true });
  if (!user || user.deleted_at) throw notFound('User');
  return user;
}

export const disableUser = defineProcedure({
  name: 'users.disable',
  summary: 'Lock a user or service account out: every session and API key of theirs stops working at once',
  scope: 'platform-admin',
  permission: null,
  input: TargetUserInput,
  output: UserViewSchema,
  async handler(ctx, input) {
    if (input.userId === ctx.principal.userId) throw forbidden('You cannot disable your own account');
    const user = await requireLiveUser(ctx.em, input.userId);
    if (user.disabled_at) return toUserView(user);
    const [updated] = await ctx.em.execute<UserRow[]>(
      `UPDATE users SET disabled_at = now(), updated_at = now() WHERE id = ? RETURNING ${USER_COLUMNS}`,
      [user.id],
    );
    ctx.emit(createEvent('user.disabled', { userId: user.id, disabledBy: ctx.principal.userId }, { userId: user.id }));
    return toUserView(updated);
  },
});

export const enableUser = defineProcedure({
  name: 'users.enable',
  summary: 'Lift a lockout',
  scope: 'platform-admin',
  permission: null,
  input: TargetUserInput,
  output: UserViewSchema,
  async handler(ctx, input) {
    const user = await requireLiveUser(ctx.em, input.userId);
    if (!user.disabled_at) return toUserView(user);
    const [updated] = await ctx.em.execute<UserRow[]>(
      `UPDATE users SET disabled_at = NULL, updated_at = now() WHERE id = ? RETURNING ${USER_COLUMNS}`,
      [user.id],
    );
    ctx.emit(createEvent('user.enabled', { userId: user.id, enabledBy: ctx.principal.userId }, { userId: user.id }));
    return toUserView(updated);
  },
});

export function createUserProcedures() {
  return [updateProfile, disableUser, enableUser];
}
