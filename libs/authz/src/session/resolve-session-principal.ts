import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound, unauthorized, type Principal } from '@mrp/platform';
import { loadOrganizationAccess } from '../access/organization-access';
import { findUser, USER_COLUMNS, type UserRow } from '../users/user-rows';
import type { SessionClaims } from './session-verifier';

export interface SessionPrincipalOptions {
  /** The active organization of the call (`X-Organization-Id`), or null. */
  organizationId: string | null;
  /** PLATFORM_ADMIN_EMAILS, lowercased. */
  platformAdminEmails: ReadonlySet<string>;
}

/**
 * Humans are owned by the identity provider: the row is created the first time a valid session
 * shows up. `ON CONFLICT DO NOTHING` makes two first requests racing each other harmless; a
 * conflict on the email index instead means another account already owns that address.
 */
async function provisionHuman(em: EntityManager, claims: SessionClaims): Promise<UserRow> {
  const existing = await findUser(em, claims.sub);
  if (existing) return existing;
  const email = claims.email.toLowerCase();
  const inserted = await em.execute<UserRow[]>(
    `INSERT INTO users (id, email, kind, display_name) VALUES (?, ?, 'HUMAN', ?)
     ON CONFLICT DO NOTHING
     RETURNING ${USER_COLUMNS}`,
    [claims.sub, email, claims.name ?? email],
  );
  if (inserted[0]) return inserted[0];
  const raced = await findUser(em, claims.sub);
  if (raced) return raced;
  throw conflict(`The email address ${email} already belongs to another account`);
}

export function isPlatformAdminEmail(email: string, platformAdminEmails: ReadonlySet<string>): boolean {
  return platformAdminEmails.has(email.toLowerCase());
}

/**
 * The principal of a session call, from live rows: a disabled or deleted account is refused, and
 * with an active organization the caller must be a member of it (a non-member gets the same 404
 * as a missing organization, so nothing about other organizations leaks).
 */
export async function resolveSessionPrincipal(
  em: EntityManager,
  claims: SessionClaims,
  options: SessionPrincipalOptions,
): Promise<Principal> {
  const user = await provisionHuman(em, claims);
  if (user.kind !== 'HUMAN') throw unauthorized('This account cannot sign in');
  if (user.deleted_at) throw unauthorized('This account has been deleted');
  if (user.disabled_at) throw unauthorized('This account is disabled');

  let roleIds: string[] = [];
  let permissions: string[] = [];
  if (options.organizationId !== null) {
    const access = await loadOrganizationAccess(em, user.id, options.organizationId);
    if (!access) throw notFound('Organization');
    roleIds = access.roleIds;
    permissions = access.permissions;
  }
  return {
    userId: user.id,
    kind: 'HUMAN',
    email: user.email,
    displayName: user.display_name,
    isPlatformAdmin: isPlatformAdminEmail(user.email, options.platformAdminEmails),
    organizationId: options.organizationId,
    roleIds,
    permissions: new Set(permissions),
    credential: { type: 'session' },
  };
}
