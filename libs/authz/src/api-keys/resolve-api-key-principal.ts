import type { EntityManager } from '@mikro-orm/postgresql';
import { createLogger, unauthorized, type Logger, type Principal, type PrincipalKind } from '@mrp/platform';
import { parseApiKeyToken } from './api-key-token';

export interface ResolveApiKeyOptions {
  /** The `public-api.service-accounts` flag: while off, service-account keys are inert. */
  serviceAccountsEnabled: boolean;
  /** Where a failed `last_used_at` write is reported; it never fails the request. */
  logger?: Logger;
}

// Deliberately coarse: a caller learns that the key does not work, not which check failed.
const INVALID_KEY = 'Invalid, revoked or expired API key';
const OWNER_CANNOT_ACT = 'The API key owner is disabled, deleted or no longer has access';

interface KeyRow {
  api_key_id: string;
  organization_id: string;
  name: string;
  prefix: string;
  full_access: boolean;
  allowlist: string[];
  expires_at: string | Date | null;
  key_usable: boolean;
  use_is_stale: boolean;
  user_id: string;
  kind: PrincipalKind;
  email: string;
  display_name: string;
  owner_usable: boolean;
  is_member: boolean;
  role_ids: string[];
  permissions: string[];
}

/*
 * One round trip on the hot path of every /api/v1 request: the key by its unique hash, its owner,
 * the owner's membership in the key's organization (unique (organization_id, user_id)), its grants
 * (unique (membership_id, role_id)) and the roles' permissions, aggregated. statement_timestamp()
 * is database time, and stays right even if the caller's em happens to be inside a transaction.
 */
const RESOLVE_SQL = `
  SELECT k.id AS api_key_id, k.organization_id, k.name, k.prefix, k.full_access,
         k.permissions AS allowlist, k.expires_at,
         (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > statement_timestamp())) AS key_usable,
         (k.last_used_at IS NULL OR k.last_used_at < statement_timestamp() - interval '1 minute') AS use_is_stale,
         u.id AS user_id, u.kind, u.email, u.display_name,
         (u.disabled_at IS NULL AND u.deleted_at IS NULL) AS owner_usable,
         (m.id IS NOT NULL) AS is_member,
         coalesce(array_agg(DISTINCT r.id::text) FILTER (WHERE r.id IS NOT NULL), '{}') AS role_ids,
         coalesce(array_agg(DISTINCT perm.permission) FILTER (WHERE perm.permission IS NOT NULL), '{}') AS permissions
    FROM api_keys k
    JOIN users u ON u.id = k.owner_user_id
    LEFT JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.owner_user_id
    LEFT JOIN role_grants g ON g.membership_id = m.id
    LEFT JOIN roles r ON r.id = g.role_id
    LEFT JOIN LATERAL unnest(r.permissions) AS perm(permission) ON true
   WHERE k.token_hash = ?
   GROUP BY k.id, u.id, m.id`;

// At most one write per key per minute, whatever the request rate.
const TOUCH_SQL = `
  UPDATE api_keys SET last_used_at = now()
   WHERE id = ? AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`;

let fallbackLogger: Logger | undefined;
function defaultLogger(): Logger {
  fallbackLogger ??= createLogger({ name: 'authz.api-keys', level: process.env.LOG_LEVEL ?? 'info' });
  return fallbackLogger;
}

/**
 * Records use without adding latency: not awaited, on its own pooled connection (outside any
 * transaction of the request), failures logged and swallowed, as a stale `lastUsedAt` is harmless.
 */
function touchLastUsed(em: EntityManager, apiKeyId: string, logger: Logger): void {
  em.getConnection()
    .execute(TOUCH_SQL, [apiKeyId], 'run')
    .catch((error: unknown) => logger.warn({ err: error, apiKeyId }, 'could not record API key use'));
}

/**
 * The principal an API key acts as, from live rows: the owner's current role permissions in the
 * key's organization, narrowed to the allowlist for a limited key (admins and owners included).
 * Throws `unauthorized` for a malformed, unknown, revoked or expired key, and for an owner who
 * is disabled, deleted, no longer a member, or a service account while those are switched off.
 */
export async function resolveApiKeyPrincipal(
  em: EntityManager,
  rawToken: string,
  options: ResolveApiKeyOptions,
): Promise<Principal> {
  const parsed = parseApiKeyToken(rawToken);
  if (!parsed) throw unauthorized(INVALID_KEY);

  const [row] = await em.execute<KeyRow[]>(RESOLVE_SQL, [parsed.hash]);
  if (!row || !row.key_usable) throw unauthorized(INVALID_KEY);
  if (!row.owner_usable || !row.is_member) throw unauthorized(OWNER_CANNOT_ACT);
  if (row.kind === 'SERVICE' && !options.serviceAccountsEnabled) throw unauthorized(OWNER_CANNOT_ACT);

  const allowlist = [...row.allowlist].sort();
  const ceiling = row.full_access ? null : new Set(allowlist);
  const permissions = new Set(row.permissions.filter((permission) => ceiling === null || ceiling.has(permission)));

  // The lookup already tells whether the minute has passed, so most requests send no UPDATE at all.
  if (row.use_is_stale) touchLastUsed(em, row.api_key_id, options.logger ?? defaultLogger());

  return {
    userId: row.user_id,
    kind: row.kind,
    email: row.email,
    displayName: row.display_name,
    isPlatformAdmin: false,
    organizationId: row.organization_id,
    roleIds: [...row.role_ids].sort(),
    permissions,
    credential: {
      type: 'api-key',
      apiKeyId: row.api_key_id,
      name: row.name,
      prefix: row.prefix,
      fullAccess: row.full_access,
      allowlist,
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    },
  };
}
