import type { EntityManager } from '@mikro-orm/postgresql';
import {
  conflict,
  newId,
  notFound,
  runInTransaction,
  unauthorized,
  type EventDispatcher,
  type EventEnvelope,
  type Principal,
} from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { ownerCannotActSql, type CannotAct } from '../access/member-access-sql';
import { loadOrganizationAccess } from '../access/organization-access';
import { rethrowUniqueViolation } from '../db/sql-values';
import { USER_COLUMNS, type UserRow } from '../users/user-rows';
import type { SessionClaims } from './session-verifier';

export interface SessionPrincipalOptions {
  /** The active organization of the call (`X-Organization-Id`), or null. */
  organizationId: string | null;
  /** PLATFORM_ADMIN_EMAILS, lowercased. */
  platformAdminEmails: ReadonlySet<string>;
  /**
   * Receives `user.email-changed` when the identity provider has changed a person's verified
   * address. Callers that sign in a fixed identity (seeds, benchmarks) may leave it out: should
   * such an identity's address ever change, resolving it fails rather than losing the event.
   */
  dispatcher?: EventDispatcher;
  /** The request id, carried by the events as their `correlationId`. */
  correlationId?: string;
}

interface SessionUserRow extends UserRow {
  cannot_act: CannotAct;
}

/** The user's row and whether they may act, by the rule an API key's owner is held to as well. */
const SESSION_USER_COLUMNS = `${USER_COLUMNS}, ${ownerCannotActSql('users')} AS cannot_act`;

async function findSessionUser(em: EntityManager, userId: string, { forUpdate = false } = {}): Promise<SessionUserRow | null> {
  const rows = await em.execute<SessionUserRow[]>(
    `SELECT ${SESSION_USER_COLUMNS} FROM users WHERE id = ?${forUpdate ? ' FOR UPDATE' : ''}`,
    [userId],
  );
  return rows[0] ?? null;
}

/** The address of the session, when the identity provider vouches for it (`email_verified` not false). */
function verifiedEmailOf(claims: SessionClaims): string | null {
  return claims.emailVerified === false ? null : claims.email.toLowerCase();
}

const addressTaken = (email: string) => `The email address ${email} already belongs to another account`;

/**
 * Humans are owned by the identity provider: the row is created the first time a valid session
 * shows up, holding the claimed address (unique only once vouched for, so an unverified claim
 * cannot take a real person's address). `ON CONFLICT DO NOTHING` makes two first requests racing
 * each other harmless; a conflict on the address instead means another account holds it.
 */
async function provisionHuman(em: EntityManager, claims: SessionClaims): Promise<SessionUserRow> {
  const email = claims.email.toLowerCase();
  const [inserted] = await em.execute<SessionUserRow[]>(
    `INSERT INTO users (id, email, email_verified, kind, display_name) VALUES (?, ?, ?, 'HUMAN', ?)
     ON CONFLICT DO NOTHING
     RETURNING ${SESSION_USER_COLUMNS}`,
    [claims.sub, email, verifiedEmailOf(claims) !== null, claims.name ?? email],
  );
  if (inserted) return inserted;
  const raced = await findSessionUser(em, claims.sub);
  if (raced) return raced;
  throw conflict(addressTaken(email));
}

/**
 * Makes the stored address the one the provider now vouches for, with `user.email-changed` when
 * it differs, in one transaction that locks the row (two first requests after the change emit
 * once). An address another account holds is refused (409) and nothing changes, for either account.
 */
async function adoptVerifiedEmail(em: EntityManager, userId: string, email: string, options: SessionPrincipalOptions): Promise<SessionUserRow> {
  let events: readonly EventEnvelope[] = [];
  const user = await runInTransaction(em, async (tx) => {
    const current = await findSessionUser(tx, userId, { forUpdate: true });
    if (!current) throw unauthorized('This account no longer exists');
    if (current.email === email && current.email_verified) return current;
    const [updated] = await tx
      .execute<SessionUserRow[]>(
        `UPDATE users SET email = ?, email_verified = true, updated_at = now() WHERE id = ? RETURNING ${SESSION_USER_COLUMNS}`,
        [email, userId],
      )
      .catch((error: unknown) => rethrowUniqueViolation(error, addressTaken(email)));
    if (current.email === email) return updated;
    if (!options.dispatcher) {
      throw new Error(`The address of user ${userId} changed, but no event dispatcher receives user.email-changed`);
    }
    const emailChanged: EventEnvelope = {
      id: newId(),
      occurredAt: new Date().toISOString(),
      ...(options.correlationId ? { correlationId: options.correlationId } : {}),
      ...createEvent('user.email-changed', { userId, previousEmail: current.email, email }, { userId }),
    };
    events = await options.dispatcher.persist(tx, [emailChanged]);
    return updated;
  });
  if (events.length > 0) options.dispatcher?.publish(events);
  return user;
}

export function isPlatformAdminEmail(email: string, platformAdminEmails: ReadonlySet<string>): boolean {
  return platformAdminEmails.has(email.toLowerCase());
}

/**
 * The principal of a session call, from live rows: a disabled or deleted account is refused, and
 * with an active organization the caller must be a member of it (a non-member gets the same 404
 * as a missing organization, so nothing about other organizations leaks). Platform-admin status
 * and the address invites bind to come from this session's verified claim, never from the row.
 */
export async function resolveSessionPrincipal(
  em: EntityManager,
  claims: SessionClaims,
  options: SessionPrincipalOptions,
): Promise<Principal> {
  let user = (await findSessionUser(em, claims.sub)) ?? (await provisionHuman(em, claims));
  if (user.kind !== 'HUMAN') throw unauthorized('This account cannot sign in');
  if (user.cannot_act === 'deleted') throw unauthorized('This account has been deleted');
  if (user.cannot_act === 'disabled') throw unauthorized('This account is disabled');

  const verifiedEmail = verifiedEmailOf(claims);
  if (verifiedEmail !== null && (user.email !== verifiedEmail || !user.email_verified)) {
    user = await adoptVerifiedEmail(em, user.id, verifiedEmail, options);
  }

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
    isPlatformAdmin: verifiedEmail !== null && isPlatformAdminEmail(verifiedEmail, options.platformAdminEmails),
    organizationId: options.organizationId,
    roleIds,
    permissions: new Set(permissions),
    credential: verifiedEmail === null ? { type: 'session' } : { type: 'session', verifiedEmail },
  };
}
