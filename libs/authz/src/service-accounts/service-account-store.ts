import type { EntityManager } from '@mikro-orm/postgresql';
import { loadOrganizationAccess } from '../access/organization-access';
import type { ServiceAccountView } from './service-account-view';

interface ServiceAccountRow {
  id: string;
  email: string;
  display_name: string;
  description: string | null;
  role_keys: string[];
  disabled_at: string | Date | null;
  created_by: string | null;
  created_at: string | Date;
}

/*
 * A service account "of an organization" is a live SERVICE user with a membership there. The
 * membership's unique (organization_id, user_id) index drives the lookup; grants and roles are
 * joined for the role keys.
 */
const SELECT_SERVICE_ACCOUNTS = `
  SELECT u.id, u.email, u.display_name, u.description, u.disabled_at, u.created_by, u.created_at,
         coalesce(array_agg(r.key ORDER BY r.key) FILTER (WHERE r.id IS NOT NULL), '{}') AS role_keys
    FROM memberships m
    JOIN users u ON u.id = m.user_id AND u.kind = 'SERVICE' AND u.deleted_at IS NULL
    LEFT JOIN role_grants g ON g.membership_id = m.id
    LEFT JOIN roles r ON r.id = g.role_id
   WHERE m.organization_id = ?`;

function toView(row: ServiceAccountRow): ServiceAccountView {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    description: row.description,
    roleKeys: [...row.role_keys],
    status: row.disabled_at === null ? 'active' : 'disabled',
    disabledAt: row.disabled_at === null ? null : new Date(row.disabled_at).toISOString(),
    createdBy: row.created_by,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export async function listServiceAccounts(em: EntityManager, organizationId: string): Promise<ServiceAccountView[]> {
  const rows = await em.execute<ServiceAccountRow[]>(
    `${SELECT_SERVICE_ACCOUNTS} GROUP BY u.id ORDER BY u.created_at, u.id`,
    [organizationId],
  );
  return rows.map(toView);
}

/** The organization's live service account with this id, or null (absent, deleted, a human, elsewhere). */
export async function findServiceAccount(
  em: EntityManager,
  organizationId: string,
  serviceAccountId: string,
): Promise<ServiceAccountView | null> {
  const [row] = await em.execute<ServiceAccountRow[]>(`${SELECT_SERVICE_ACCOUNTS} AND u.id = ? GROUP BY u.id`, [
    organizationId,
    serviceAccountId,
  ]);
  return row ? toView(row) : null;
}

export interface ServiceAccountChange {
  displayName?: string;
  description?: string | null;
}

/**
 * Applies a change to the organization's live service account in one conditional UPDATE (so a
 * concurrent delete cannot be overwritten). Returns whether such an account existed.
 */
export async function updateServiceAccount(
  em: EntityManager,
  organizationId: string,
  serviceAccountId: string,
  change: ServiceAccountChange,
): Promise<boolean> {
  const assignments: string[] = ['updated_at = now()'];
  const params: unknown[] = [];
  if (change.displayName !== undefined) {
    assignments.push('display_name = ?');
    params.push(change.displayName);
  }
  if (change.description !== undefined) {
    assignments.push('description = ?');
    params.push(change.description);
  }
  const result = await em.execute<{ id: string }[]>(
    `UPDATE users u SET ${assignments.join(', ')}
       FROM memberships m
      WHERE m.user_id = u.id AND m.organization_id = ?
        AND u.id = ? AND u.kind = 'SERVICE' AND u.deleted_at IS NULL
      RETURNING u.id`,
    [...params, organizationId, serviceAccountId],
  );
  return result.length > 0;
}

/**
 * Deletes the organization's live service account in one statement: its membership goes (its role
 * grants cascade with it) and the user is marked deleted. Deleting the membership row first makes
 * a concurrent key creation, which holds a share lock on it, finish before this goes on (see
 * lockServiceAccountMembership). Returns whether such an account existed.
 */
export async function deleteServiceAccount(em: EntityManager, organizationId: string, serviceAccountId: string): Promise<boolean> {
  const result = await em.execute<{ id: string }[]>(
    `WITH gone AS (
       DELETE FROM memberships m
        USING users u
        WHERE m.organization_id = ? AND m.user_id = ?
          AND u.id = m.user_id AND u.kind = 'SERVICE' AND u.deleted_at IS NULL
       RETURNING m.user_id)
     UPDATE users SET deleted_at = now(), updated_at = now()
      WHERE id IN (SELECT user_id FROM gone)
      RETURNING id`,
    [organizationId, serviceAccountId],
  );
  return result.length > 0;
}

/**
 * Share-locks the membership of the organization's live service account until commit; false when
 * there is no such account. A key created under this lock cannot escape the revoke of a concurrent
 * serviceAccounts.delete or organizations.removeMember: both delete the membership row first.
 */
export async function lockServiceAccountMembership(
  em: EntityManager,
  organizationId: string,
  serviceAccountId: string,
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `SELECT m.id
       FROM memberships m
       JOIN users u ON u.id = m.user_id AND u.kind = 'SERVICE' AND u.deleted_at IS NULL
      WHERE m.organization_id = ? AND m.user_id = ?
        FOR SHARE OF m`,
    [organizationId, serviceAccountId],
  );
  return rows.length > 0;
}

/** The service account's live permissions in the organization (union of its roles), sorted. */
export async function serviceAccountPermissions(
  em: EntityManager,
  organizationId: string,
  serviceAccountId: string,
): Promise<string[]> {
  return (await loadOrganizationAccess(em, serviceAccountId, organizationId))?.permissions ?? [];
}

/**
 * Disables or enables the organization's live service account. Conditional on the current state,
 * so of two concurrent calls exactly one changes it (and emits). 'unchanged' covers both "already
 * so" and "no such account": the caller tells them apart by reading the account.
 */
export async function setServiceAccountDisabled(
  em: EntityManager,
  organizationId: string,
  serviceAccountId: string,
  disabled: boolean,
): Promise<'changed' | 'unchanged'> {
  const result = await em.execute<{ id: string }[]>(
    `UPDATE users u SET disabled_at = CASE WHEN ? THEN now() END, updated_at = now()
       FROM memberships m
      WHERE m.user_id = u.id AND m.organization_id = ?
        AND u.id = ? AND u.kind = 'SERVICE' AND u.deleted_at IS NULL
        AND (u.disabled_at IS NULL) = ?
      RETURNING u.id`,
    [disabled, organizationId, serviceAccountId, disabled],
  );
  return result.length > 0 ? 'changed' : 'unchanged';
}
