import type { EntityManager } from '@mikro-orm/postgresql';
import { Type, type Static } from '@sinclair/typebox';
import type { PrincipalKind } from '@mrp/platform';
import { toIso } from '../db/sql-values';

export interface UserRow {
  id: string;
  email: string;
  /** Whether the identity provider vouched for `email` (always true for service accounts). */
  email_verified: boolean;
  kind: PrincipalKind;
  display_name: string;
  disabled_at: string | null;
  deleted_at: string | null;
  deletion_scheduled_for: string | null;
  created_at: string;
  updated_at: string;
}

/** A user id in procedure inputs: a provider `sub` or a `svc_` id. */
export const USER_ID_SCHEMA = Type.String({ minLength: 1, maxLength: 255 });

export const USER_COLUMNS =
  'id, email, email_verified, kind, display_name, disabled_at, deleted_at, deletion_scheduled_for, created_at, updated_at';

export const UserViewSchema = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('HUMAN'), Type.Literal('SERVICE')]),
  email: Type.String(),
  displayName: Type.String(),
  disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  deletionScheduledFor: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type UserView = Static<typeof UserViewSchema>;

export function toUserView(row: UserRow): UserView {
  return {
    id: row.id,
    kind: row.kind,
    email: row.email,
    displayName: row.display_name,
    disabledAt: toIso(row.disabled_at),
    deletionScheduledFor: toIso(row.deletion_scheduled_for),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export async function findUser(em: EntityManager, userId: string, { forUpdate = false } = {}): Promise<UserRow | null> {
  const rows = await em.execute<UserRow[]>(
    `SELECT ${USER_COLUMNS} FROM users WHERE id = ?${forUpdate ? ' FOR UPDATE' : ''}`,
    [userId],
  );
  return rows[0] ?? null;
}
