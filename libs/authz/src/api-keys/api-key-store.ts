import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, newId } from '@mrp/platform';
import { ApiKey } from './api-key.entity';
import type { ApiKeyAccess } from './api-key-access';
import { generateApiKeyToken } from './api-key-token';
import type { ApiKeyStatus, ApiKeyView, CreatedApiKey } from './api-key-view';

/** Whose keys: the owner in one organization. Every read and write is fenced by both. */
export interface ApiKeyOwnerScope {
  ownerUserId: string;
  organizationId: string;
}

interface StoredApiKey {
  id: string;
  name: string;
  prefix: string;
  fullAccess: boolean;
  permissions: string[];
  expiresAt?: Date | null;
  revokedAt?: Date | null;
  lastUsedAt?: Date | null;
  createdAt: Date;
}

function statusOf(key: StoredApiKey, now: Date): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

export function toApiKeyView(key: StoredApiKey, now: Date = new Date()): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    fullAccess: key.fullAccess,
    permissions: [...key.permissions],
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    createdAt: key.createdAt.toISOString(),
    status: statusOf(key, now),
  };
}

/** Keys an owner (a person or a service account) may hold live in one organization: revoked and expired ones do not count. */
export const MAX_ACTIVE_API_KEYS_PER_OWNER = 100;

/**
 * Mints a token and stores its hash; the plaintext leaves only in the returned value. Refused
 * (409) when the owner already holds MAX_ACTIVE_API_KEYS_PER_OWNER live keys in the organization.
 */
export async function createApiKey(
  em: EntityManager,
  scope: ApiKeyOwnerScope & { createdBy: string; name: string; access: ApiKeyAccess },
): Promise<CreatedApiKey> {
  // Two creations at once must not both pass the cap: they queue on the owner's lock until commit.
  await em.execute("SELECT pg_advisory_xact_lock(hashtextextended('api-keys:' || ? || ':' || ?, 0))", [scope.organizationId, scope.ownerUserId]);
  const [{ count }] = await em.execute<Array<{ count: number }>>(
    `SELECT count(*)::int AS count FROM api_keys
      WHERE organization_id = ? AND owner_user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [scope.organizationId, scope.ownerUserId],
  );
  if (count >= MAX_ACTIVE_API_KEYS_PER_OWNER) {
    throw conflict(`At most ${MAX_ACTIVE_API_KEYS_PER_OWNER} active API keys per owner in an organization; revoke one first`);
  }
  const { token, prefix, hash } = generateApiKeyToken();
  const key = em.create(ApiKey, {
    id: newId(),
    organizationId: scope.organizationId,
    ownerUserId: scope.ownerUserId,
    name: scope.name.trim(),
    tokenHash: hash,
    prefix,
    fullAccess: scope.access.fullAccess,
    permissions: scope.access.permissions,
    expiresAt: scope.access.expiresAt,
    createdBy: scope.createdBy,
    createdAt: new Date(),
  });
  return { ...toApiKeyView(key), token };
}

export async function listApiKeys(em: EntityManager, scope: ApiKeyOwnerScope): Promise<ApiKeyView[]> {
  const keys = await em.find(
    ApiKey,
    { ownerUserId: scope.ownerUserId, organizationId: scope.organizationId },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  const now = new Date();
  return keys.map((key) => toApiKeyView(key, now));
}

/** One of the owner's keys, read afresh, or null (someone else's key is indistinguishable from none). */
export async function findApiKey(em: EntityManager, scope: ApiKeyOwnerScope & { id: string }): Promise<ApiKeyView | null> {
  const key = await em.findOne(
    ApiKey,
    { id: scope.id, ownerUserId: scope.ownerUserId, organizationId: scope.organizationId },
    { refresh: true },
  );
  return key ? toApiKeyView(key) : null;
}

/**
 * Revokes one of the owner's keys; revoking a revoked key keeps its first revocation time.
 * Null when the owner has no such key (someone else's key is indistinguishable from none).
 *
 * One conditional UPDATE, so of two concurrent revokes exactly one sets `revokedAt`; the other
 * waits for its row lock, matches nothing, and reads the row as the first one left it.
 */
export async function revokeApiKey(em: EntityManager, scope: ApiKeyOwnerScope & { id: string }): Promise<ApiKeyView | null> {
  await em.nativeUpdate(
    ApiKey,
    { id: scope.id, ownerUserId: scope.ownerUserId, organizationId: scope.organizationId, revokedAt: null },
    { revokedAt: new Date() },
  );
  return findApiKey(em, scope);
}

/** Revokes every live key a user owns (a deleted service account takes its keys with it). */
export async function revokeAllApiKeysOf(em: EntityManager, ownerUserId: string): Promise<number> {
  return em.nativeUpdate(ApiKey, { ownerUserId, revokedAt: null }, { revokedAt: new Date() });
}
