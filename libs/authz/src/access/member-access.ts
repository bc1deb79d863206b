import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, preparedStatement } from '@mrp/platform';
import { memberAccessSql } from './member-access-sql';

export interface MemberAccess {
  roleIds: readonly string[];
  permissions: readonly string[];
}

interface CachedAccess extends MemberAccess {
  version: string;
}

// The membership's access and the version it belongs to, from one statement: one snapshot.
const MEMBER_ACCESS = preparedStatement(
  `
  SELECT access.role_ids, access.permissions, o.access_version
    FROM memberships m
    JOIN organizations o ON o.id = m.organization_id
    CROSS JOIN LATERAL (${memberAccessSql('m.id')}) access
   WHERE m.id = $1::uuid`,
  {
    purpose: "a membership's roles and permissions",
    indexes: ['memberships_pkey', 'organizations_pkey', 'role_grants_membership_id_role_id_key', 'roles_pkey'],
  },
);

const MAX_MEMBERSHIPS = 10_000;

/** Per database (a process may serve several in tests), by membership id, least recently used first. */
const cachesByDriver = new WeakMap<object, Map<string, CachedAccess>>();

function cacheOf(em: EntityManager): Map<string, CachedAccess> {
  const driver = em.getDriver();
  let cache = cachesByDriver.get(driver);
  if (!cache) {
    cache = new Map();
    cachesByDriver.set(driver, cache);
  }
  return cache;
}

/**
 * What a membership may do (its role ids and the union of their permissions, both sorted), as of
 * `version`: the organization's `access_version` read in the same statement as the key. Kept per
 * process while that version is current; any change to a role, grant or membership of the
 * organization moves it (a trigger, in the change's transaction), so the next request reads the
 * access again. Nothing about the key or its owner is kept: those are read on every request.
 */
export async function memberAccess(em: EntityManager, membershipId: string, version: string): Promise<MemberAccess> {
  const cache = cacheOf(em);
  const cached = cache.get(membershipId);
  if (cached && cached.version === version) {
    cache.delete(membershipId);
    cache.set(membershipId, cached);
    return cached;
  }
  const [row] = await executePrepared<{ role_ids: string[]; permissions: string[]; access_version: string }>(em, MEMBER_ACCESS, [membershipId]);
  // Gone since the key was read: nothing to act with.
  if (!row) return { roleIds: [], permissions: [] };
  // Frozen: every principal of the membership shares them until the version moves.
  const access: CachedAccess = { roleIds: Object.freeze(row.role_ids), permissions: Object.freeze(row.permissions), version: String(row.access_version) };
  cache.delete(membershipId);
  cache.set(membershipId, access);
  if (cache.size > MAX_MEMBERSHIPS) cache.delete(cache.keys().next().value as string);
  return access;
}
