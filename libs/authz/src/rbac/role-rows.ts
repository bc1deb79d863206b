import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '@mrp/platform';
import { toIso } from '../db/sql-values';
import type { RoleView } from './role-view';

export { ROLE_KEY_PATTERN } from './rbac-inputs';

export interface RoleRow {
  id: string;
  key: string;
  name: string;
  description: string;
  permissions: string[];
  built_in: boolean;
  member_count: number;
  created_at: string;
  updated_at: string;
}


export function toRoleView(row: RoleRow): RoleView {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    permissions: [...row.permissions].sort(),
    builtIn: row.built_in,
    memberCount: row.member_count,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

const ROLE_SELECT = `
  SELECT r.id, r.key, r.name, r.description, r.permissions, r.built_in, r.created_at, r.updated_at,
         (SELECT count(*)::int FROM role_grants g WHERE g.role_id = r.id) AS member_count
    FROM roles r`;

/** Built-in roles first, in the order they were created (owner, admin, member, read-only), then custom roles by key. */
export async function listRoles(em: EntityManager, organizationId: string): Promise<RoleRow[]> {
  return em.execute<RoleRow[]>(
    `${ROLE_SELECT} WHERE r.organization_id = ? ORDER BY r.built_in DESC, (CASE WHEN r.built_in THEN r.id END), r.key`,
    [organizationId],
  );
}

export async function findRoleByKey(em: EntityManager, organizationId: string, key: string): Promise<RoleRow | null> {
  const rows = await em.execute<RoleRow[]>(`${ROLE_SELECT} WHERE r.organization_id = ? AND r.key = ?`, [organizationId, key]);
  return rows[0] ?? null;
}

export async function requireRoleByKey(em: EntityManager, organizationId: string, key: string): Promise<RoleRow> {
  const role = await findRoleByKey(em, organizationId, key);
  if (!role) throw notFound('Role');
  return role;
}
