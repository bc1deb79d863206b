import type { EntityManager } from '@mikro-orm/postgresql';
import {
  createLogger,
  executePrepared,
  preparedStatement,
  unauthorized,
  type Logger,
  type Principal,
  type PrincipalKind,
} from '@mrp/platform';
import { ownerCannotActSql } from '../access/member-access-sql';
import { memberAccess, type MemberAccess } from '../access/member-access';
import { decide, type RateLimitDecision, type RateLimiter } from '../rate-limit/rate-limiter';
import { PostgresRateLimiter, takeTokenSql } from '../rate-limit/postgres-rate-limiter';
import { parseApiKeyToken } from './api-key-token';

export interface ResolveApiKeyOptions {
  /** The `public-api.service-accounts` flag: while off, service-account keys are inert. */
  serviceAccountsEnabled: boolean;
  /** Where a failed `last_used_at` write is reported; it never fails the request. */
  logger?: Logger;
}

export interface AuthenticateApiKeyOptions extends ResolveApiKeyOptions {
  /** The key's token bucket; a token is taken only once the key has authenticated. */
  rateLimiter: RateLimiter;
}

export interface ApiKeyAuthentication {
  principal: Principal;
  /** Whether this request may go on, and what the X-RateLimit-* headers say. */
  rateLimit: RateLimitDecision;
}

// Deliberately coarse: a caller learns that the key does not work, not which check failed.
const INVALID_KEY = 'Invalid, revoked or expired API key';
const OWNER_CANNOT_ACT = 'The API key owner is disabled, deleted or no longer has access';

interface KeyRow {
  api_key_id: string;
  membership_id: string | null;
  /** `organizations.access_version`, read with the key: the membership's cached access is good while it matches. */
  access_version: string;
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
}

interface KeyRowWithTake extends KeyRow {
  /** Null when no token was taken: the key did not authenticate. */
  bucket_tokens: number | null;
  bucket_admitted: boolean | null;
}

/*
 * The key by its unique hash ($1), its owner, its organization's access version and the owner's
 * membership there (unique (organization_id, user_id)). What the membership may do (its roles
 * and their permissions) is kept per process and read again only when the version moved
 * (member-access.ts). statement_timestamp() is database time, and stays right even if the
 * caller's em happens to be inside a transaction.
 */
const KEY_LOOKUP_SQL = `
  SELECT k.id AS api_key_id, k.organization_id, k.name, k.prefix, k.full_access,
         k.permissions AS allowlist, k.expires_at,
         (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > statement_timestamp())) AS key_usable,
         (k.last_used_at IS NULL OR k.last_used_at < statement_timestamp() - interval '1 minute') AS use_is_stale,
         u.id AS user_id, u.kind, u.email, u.display_name,
         ${ownerCannotActSql('u')} IS NULL AS owner_usable,
         m.id AS membership_id, o.access_version
    FROM api_keys k
    JOIN users u ON u.id = k.owner_user_id
    JOIN organizations o ON o.id = k.organization_id
    LEFT JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.owner_user_id
   WHERE k.token_hash = $1`;

// Every join is on a unique key: the plan reads those indexes and nothing organization-wide.
const KEY_LOOKUP_INDEXES = ['api_keys_token_hash_key', 'users_pkey', 'organizations_pkey', 'memberships_organization_id_user_id_key'];

// Prepared: the lookup runs on every /api/v1 request, and planning its joins costs about as much as running them.
const KEY_LOOKUP = preparedStatement(KEY_LOOKUP_SQL, { purpose: 'API key lookup', indexes: KEY_LOOKUP_INDEXES });

/*
 * The lookup and the key's rate-limit take in one round trip, for buckets kept in PostgreSQL.
 * The take reads the lookup's row and runs only when the key authenticates (the conditions of
 * `assertCanAct`), so a 401 consumes nothing. $2: service accounts enabled; $3: burst; $4: rate.
 */
const KEY_LOOKUP_AND_TAKE = preparedStatement(
  `
  WITH api_key AS (${KEY_LOOKUP_SQL}),
  taken AS (${takeTokenSql({
    bucketKey: 'api_key.api_key_id::text',
    from: `FROM api_key
           WHERE api_key.key_usable AND api_key.owner_usable AND api_key.membership_id IS NOT NULL
             AND (api_key.kind <> 'SERVICE' OR $2::boolean)`,
    burst: '$3',
    ratePerSecond: '$4',
  })})
  SELECT api_key.*, taken.tokens AS bucket_tokens, taken.admitted AS bucket_admitted
    FROM api_key LEFT JOIN taken ON true`,
  { purpose: 'API key lookup and rate-limit take', indexes: [...KEY_LOOKUP_INDEXES, 'rate_limit_buckets_pkey'] },
);

// At most one write per key per minute, whatever the request rate.
const TOUCH = preparedStatement(
  `
  UPDATE api_keys SET last_used_at = now()
   WHERE id = $1::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
  { purpose: 'API key use', indexes: ['api_keys_pkey'] },
);

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
  executePrepared(em.fork(), TOUCH, [apiKeyId]).catch((error: unknown) =>
    logger.warn({ err: error, apiKeyId }, 'could not record API key use'),
  );
}

function tokenHash(rawToken: string): string {
  const parsed = parseApiKeyToken(rawToken);
  if (!parsed) throw unauthorized(INVALID_KEY);
  return parsed.hash;
}

/** Throws `unauthorized` when the looked-up key or its owner cannot act; else the owner's membership. */
function assertCanAct(row: KeyRow | undefined, options: ResolveApiKeyOptions): asserts row is KeyRow & { membership_id: string } {
  if (!row || !row.key_usable) throw unauthorized(INVALID_KEY);
  if (!row.owner_usable || row.membership_id === null) throw unauthorized(OWNER_CANNOT_ACT);
  if (row.kind === 'SERVICE' && !options.serviceAccountsEnabled) throw unauthorized(OWNER_CANNOT_ACT);
}

/**
 * A membership's permissions under each key ceiling (all, or an allowlist), built once per access
 * (a cached access stands for one version of the organization's access) rather than per request.
 */
const permissionsByCeiling = new WeakMap<MemberAccess, Map<string, ReadonlySet<string>>>();

function permissionsWithin(access: MemberAccess, allowlist: readonly string[] | null): ReadonlySet<string> {
  let byCeiling = permissionsByCeiling.get(access);
  if (!byCeiling) permissionsByCeiling.set(access, (byCeiling = new Map()));
  const ceilingKey = allowlist === null ? 'all' : `only:${allowlist.join(' ')}`;
  let permissions = byCeiling.get(ceilingKey);
  if (!permissions) {
    const ceiling = allowlist === null ? null : new Set(allowlist);
    permissions = new Set(access.permissions.filter((permission) => ceiling === null || ceiling.has(permission)));
    byCeiling.set(ceilingKey, permissions);
  }
  return permissions;
}

/** The principal of a key that may act, with its owner's current access in the key's organization. */
async function principalFrom(row: KeyRow & { membership_id: string }, em: EntityManager, options: ResolveApiKeyOptions): Promise<Principal> {
  const access = await memberAccess(em, row.membership_id, String(row.access_version));
  const allowlist = [...row.allowlist].sort();
  const permissions = permissionsWithin(access, row.full_access ? null : allowlist);

  // The lookup already tells whether the minute has passed, so most requests send no UPDATE at all.
  if (row.use_is_stale) touchLastUsed(em, row.api_key_id, options.logger ?? defaultLogger());

  return {
    userId: row.user_id,
    kind: row.kind,
    email: row.email,
    displayName: row.display_name,
    isPlatformAdmin: false,
    organizationId: row.organization_id,
    roleIds: access.roleIds,
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

/**
 * The principal an API key acts as, from live rows: the owner's current role permissions in the
 * key's organization, narrowed to the allowlist for a limited key (admins and owners included).
 * Throws `unauthorized` for a malformed, unknown, revoked or expired key, and for an owner who
 * is disabled, deleted, no longer a member, or a service account while those are switched off.
 */
export async function resolveApiKeyPrincipal(em: EntityManager, rawToken: string, options: ResolveApiKeyOptions): Promise<Principal> {
  const hash = tokenHash(rawToken);
  const [row] = await executePrepared<KeyRow>(em, KEY_LOOKUP, [hash]);
  assertCanAct(row, options);
  return principalFrom(row, em, options);
}

/**
 * `resolveApiKeyPrincipal`, then one token from the key's bucket. With the PostgreSQL limiter on
 * the application's own database both happen in a single statement (the bucket table lives
 * beside the keys); any other limiter, a PostgreSQL one elsewhere included, is asked after the
 * lookup. Either way an unauthenticated request takes no token.
 */
export async function authenticateApiKey(em: EntityManager, rawToken: string, options: AuthenticateApiKeyOptions): Promise<ApiKeyAuthentication> {
  const { rateLimiter } = options;
  if (!(rateLimiter instanceof PostgresRateLimiter && rateLimiter.keepsBucketsBeside(em))) {
    const principal = await resolveApiKeyPrincipal(em, rawToken, options);
    const credential = principal.credential;
    const bucketKey = credential.type === 'api-key' ? credential.apiKeyId : principal.userId;
    return { principal, rateLimit: await rateLimiter.take(bucketKey) };
  }
  const hash = tokenHash(rawToken);
  const { burst, ratePerSecond } = rateLimiter.settings;
  const [row] = await executePrepared<KeyRowWithTake>(em, KEY_LOOKUP_AND_TAKE, [hash, options.serviceAccountsEnabled, burst, ratePerSecond]);
  assertCanAct(row, options);
  const principal = await principalFrom(row, em, options);
  if (row.bucket_tokens === null || row.bucket_admitted === null) {
    throw new Error('The rate-limit take did not run for an authenticated key');
  }
  return { principal, rateLimit: decide(rateLimiter.settings, row.bucket_admitted, Number(row.bucket_tokens)) };
}
