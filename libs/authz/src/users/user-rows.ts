import type { EntityManager } from '@mikro-orm/postgresql';
import type { PrincipalKind } from '@mrp/platform';
import { toIso } from '../db/sql-values';
import { UserViewSchema, type UserView } from './user-view';

export { USER_ID_SCHEMA } from './user-inputs';
export { UserViewSchema, type UserView };

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


export const USER_COLUMNS =
  'id, email, email_verified, kind, display_name, disabled_at, deleted_at, deletion_scheduled_for, created_at, updated_at';


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
