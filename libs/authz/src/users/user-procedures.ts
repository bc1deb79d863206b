import type { EntityManager } from '@mikro-orm/postgresql';
import { Type } from '@sinclair/typebox';
import { defineProcedure, forbidden, notFound, validationFailed, type AnyProcedure } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { rethrowUniqueViolation } from '../db/sql-values';
import { USER_COLUMNS, USER_ID_SCHEMA, UserViewSchema, findUser, toUserView, type UserRow } from './user-rows';

export const updateProfile = defineProcedure({
  name: 'users.updateProfile',
  summary: 'Change your display name or email address',
  scope: 'user',
  permission: null,
  input: Type.Object(
    {
      displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  output: UserViewSchema,
  async handler(ctx, input) {
    if (ctx.principal.kind !== 'HUMAN') throw forbidden('Service accounts are changed through serviceAccounts.update');
    const current = await findUser(ctx.em, ctx.principal.userId, { forUpdate: true });
    if (!current) throw notFound('User');
    const displayName = input.displayName === undefined ? current.display_name : input.displayName.trim();
    if (!displayName) throw validationFailed([{ field: 'displayName', code: 'required', message: 'must not be blank' }]);
    const email = input.email === undefined ? current.email : input.email.toLowerCase();
    const changes = [
      ...(displayName !== current.display_name ? ['displayName'] : []),
      ...(email !== current.email ? ['email'] : []),
    ];
    if (changes.length === 0) return toUserView(current);

    const [updated] = await ctx.em
      .execute<UserRow[]>(
        `UPDATE users SET display_name = ?, email = ?, updated_at = now() WHERE id = ? RETURNING ${USER_COLUMNS}`,
        [displayName, email, current.id],
      )
      .catch((error: unknown) => rethrowUniqueViolation(error, `The email address ${email} is already used by another account`));
    const scope = { userId: current.id };
    ctx.emit(createEvent('user.profile-updated', { userId: current.id, changes }, scope));
    if (email !== current.email) {
      ctx.emit(createEvent('user.email-changed', { userId: current.id, previousEmail: current.email, email }, scope));
    }
    return toUserView(updated);
  },
});

const TargetUser = Type.Object({ userId: USER_ID_SCHEMA }, { additionalProperties: false });

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
  input: TargetUser,
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
  input: TargetUser,
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

export function createUserProcedures(): AnyProcedure[] {
  return [updateProfile, disableUser, enableUser];
}
