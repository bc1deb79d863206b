import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '@mrp/platform';
import { toIso } from '../db/sql-values';
import type { MemberView, OrganizationView } from './organization-view';

export interface OrganizationRow {
  id: string;
  name: string;
  slug: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export const ORGANIZATION_COLUMNS = 'id, name, slug, created_by, created_at, updated_at';

export function toOrganizationView(row: OrganizationRow): OrganizationView {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    createdBy: row.created_by,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export async function requireOrganization(em: EntityManager, organizationId: string): Promise<OrganizationRow> {
  const rows = await em.execute<OrganizationRow[]>(`SELECT ${ORGANIZATION_COLUMNS} FROM organizations WHERE id = ?`, [
    organizationId,
  ]);
  if (!rows[0]) throw notFound('Organization');
  return rows[0];
}

interface MemberRow {
  user_id: string;
  kind: 'HUMAN' | 'SERVICE';
  email: string;
  display_name: string;
  joined_at: string;
  disabled_at: string | null;
  role_keys: string[];
}

/** Live members (deleted accounts left out) with their role keys, in joining order. */
export async function listMembers(em: EntityManager, organizationId: string): Promise<MemberView[]> {
  const rows = await em.execute<MemberRow[]>(
    `SELECT m.user_id, u.kind, u.email, u.display_name, m.joined_at, u.disabled_at,
            coalesce(array_agg(r.key ORDER BY r.key) FILTER (WHERE r.key IS NOT NULL), '{}') AS role_keys
       FROM memberships m
       JOIN users u ON u.id = m.user_id
       LEFT JOIN role_grants g ON g.membership_id = m.id
       LEFT JOIN roles r ON r.id = g.role_id
      WHERE m.organization_id = ? AND u.deleted_at IS NULL
      GROUP BY m.id, u.id
      ORDER BY m.joined_at, m.id`,
    [organizationId],
  );
  return rows.map((row) => ({
    userId: row.user_id,
    kind: row.kind,
    email: row.email,
    displayName: row.display_name,
    roleKeys: row.role_keys,
    joinedAt: toIso(row.joined_at),
    disabled: row.disabled_at !== null,
  }));
}
