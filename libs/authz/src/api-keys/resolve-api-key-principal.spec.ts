import { Pool } from 'pg';
import { platformModule, ProcedureRegistry, type Principal } from '@mrp/platform';
import { createTestOrm, silentLogger, statementsOf, type TestOrm } from '@mrp/platform/testing';
import { authzModule } from '../authz-module';
import { ALL_PERMISSIONS } from '../rbac/permission-catalog';
import { apiKeyProcedures } from './api-key-procedures';
import type { CreatedApiKey } from './api-key-view';
import { InMemoryRateLimiter } from '../rate-limit/in-memory-rate-limiter';
import { PostgresRateLimiter } from '../rate-limit/postgres-rate-limiter';
import type { RateLimiter } from '../rate-limit/rate-limiter';
import { authenticateApiKey, resolveApiKeyPrincipal } from './resolve-api-key-principal';
import {
  invokeAs,
  seedMember,
  seedMembership,
  seedOrganization,
  seedRole,
  sessionPrincipal,
  type SeededOrganization,
} from '@mrp/authz/testing';

const INVALID = { code: 'unauthorized', message: 'Invalid, revoked or expired API key' };
const OWNER_CANNOT_ACT = { code: 'unauthorized', message: 'The API key owner is disabled, deleted or no longer has access' };

describe('resolveApiKeyPrincipal', () => {
  let db: TestOrm;
  let org: SeededOrganization;
  const procedures = new ProcedureRegistry(apiKeyProcedures);

  beforeAll(async () => {
    db = await createTestOrm([platformModule, authzModule]);
    org = await seedOrganization(db.orm);
  });
  afterAll(() => db.close());

  const resolve = (token: string) =>
    resolveApiKeyPrincipal(db.orm.em.fork(), token, { serviceAccountsEnabled: false, logger: silentLogger });
  const sql = (query: string, params: unknown[] = []) => db.orm.em.fork().execute(query, params);

  async function keyFor(userId: string, input: Record<string, unknown> = { fullAccess: true }): Promise<CreatedApiKey> {
    const caller = await sessionPrincipal(db.orm, userId, org.id);
    return invokeAs<CreatedApiKey>(db.orm, procedures.require('apiKeys.create'), caller, { name: 'key', ...input });
  }

  it("acts as the owner with the owner's live permissions and role ids, never as platform admin", async () => {
    const userId = await seedMember(db.orm, org, ['member']);
    const key = await keyFor(userId);
    const principal = await resolve(key.token);
    expect(principal).toMatchObject<Partial<Principal>>({
      userId,
      kind: 'HUMAN',
      email: `${userId}@example.com`,
      isPlatformAdmin: false,
      organizationId: org.id,
      roleIds: [org.roleIds.member],
    });
    expect([...principal.permissions].sort()).toEqual(
      ['api-keys.manage', 'data-models.read', 'records.create', 'records.delete', 'records.read', 'records.update'],
    );
    expect(principal.credential).toEqual({
      type: 'api-key',
      apiKeyId: key.id,
      name: 'key',
      prefix: key.prefix,
      fullAccess: true,
      allowlist: [],
      expiresAt: null,
    });
  });

  it('resolves key, owner and permissions in one round trip', async () => {
    const key = await keyFor(await seedMember(db.orm, org, ['member', 'read-only']));
    await resolve(key.token); // the first use also records lastUsedAt
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = await statementsOf(() => resolve(key.token));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/FROM api_keys k/);
  });

  it("reads the member's access again, and only then, once the organization's access version moved", async () => {
    const role = await seedRole(db.orm, org.id, 'auditor', ['api-keys.manage', 'records.read']);
    const userId = await seedMember(db.orm, org, []);
    await sql('INSERT INTO role_grants (id, membership_id, role_id, granted_by) SELECT gen_random_uuid(), id, ?, ? FROM memberships WHERE user_id = ?', [
      role,
      'test',
      userId,
    ]);
    const key = await keyFor(userId);
    await resolve(key.token);
    await new Promise((resolve) => setTimeout(resolve, 100)); // lets the first use's lastUsedAt write land
    expect(await statementsOf(() => resolve(key.token))).toHaveLength(1);

    // A role's own permissions changing is enough: no grant or membership moved.
    await sql('UPDATE roles SET permissions = ? WHERE id = ?', ['{api-keys.manage,records.read,data-models.read}', role]);
    let principal: Principal | undefined;
    const sent = await statementsOf(async () => {
      principal = await resolve(key.token);
    });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatch(/FROM memberships m/);
    expect([...(principal?.permissions ?? [])].sort()).toEqual(['api-keys.manage', 'data-models.read', 'records.read']);
    expect(await statementsOf(() => resolve(key.token))).toHaveLength(1);
  });

  it('limits even an owner to the allowlist of a limited key (live permissions ∩ allowlist)', async () => {
    const ownerId = await seedMember(db.orm, org, ['owner']);
    const key = await keyFor(ownerId, { fullAccess: false, permissions: ['records.read', 'data-models.read'] });
    const principal = await resolve(key.token);
    expect([...principal.permissions].sort()).toEqual(['data-models.read', 'records.read']);
    expect(principal.credential).toMatchObject({ fullAccess: false, allowlist: ['data-models.read', 'records.read'] });

    const fullKey = await keyFor(ownerId);
    const full = await resolve(fullKey.token);
    expect([...full.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());

    // One membership's access serves every key of its owner: each key keeps its own ceiling.
    const other = await keyFor(ownerId, { fullAccess: false, permissions: ['records.create'] });
    expect([...(await resolve(other.token)).permissions]).toEqual(['records.create']);
    expect([...(await resolve(key.token)).permissions].sort()).toEqual(['data-models.read', 'records.read']);
    expect((await resolve(fullKey.token)).permissions.size).toBe(ALL_PERMISSIONS.length);
  });

  it('gives a read-only owner a read-only key', async () => {
    const key = await keyFor(await seedMember(db.orm, org, ['read-only']));
    expect([...(await resolve(key.token)).permissions].sort()).toEqual(['api-keys.manage', 'data-models.read', 'records.read']);
  });

  it('drops a permission on the next request once the owner loses the role that gave it', async () => {
    const writerRole = await seedRole(db.orm, org.id, 'writer', ['records.create', 'records.read']);
    const userId = await seedMember(db.orm, org, ['read-only']);
    await sql('INSERT INTO role_grants (id, membership_id, role_id, granted_by) SELECT gen_random_uuid(), id, ?, ? FROM memberships WHERE user_id = ?', [
      writerRole,
      'test',
      userId,
    ]);
    const key = await keyFor(userId, { fullAccess: false, permissions: ['records.create', 'records.read'] });
    expect([...(await resolve(key.token)).permissions].sort()).toEqual(['records.create', 'records.read']);

    await sql('DELETE FROM role_grants WHERE role_id = ?', [writerRole]);
    const after = await resolve(key.token);
    expect([...after.permissions]).toEqual(['records.read']);
    expect(after.roleIds).toEqual([org.roleIds['read-only']]);
  });

  it('rejects an unknown key and a key with a bad checksum, the latter without a database hit', async () => {
    const key = await keyFor(await seedMember(db.orm, org, ['member']));
    await sql('DELETE FROM api_keys WHERE id = ?', [key.id]);
    await expect(resolve(key.token)).rejects.toMatchObject(INVALID);

    const last = key.token.at(-1) === 'a' ? 'b' : 'a';
    const sent = await statementsOf(async () => {
      await expect(resolve(key.token.slice(0, -1) + last)).rejects.toMatchObject(INVALID);
      await expect(resolveApiKeyPrincipal(db.orm.em.fork(), 'not-a-key', { serviceAccountsEnabled: false })).rejects.toMatchObject(INVALID);
    });
    expect(sent).toEqual([]);
  });

  it('rejects a revoked key from the next request on', async () => {
    const userId = await seedMember(db.orm, org, ['member']);
    const key = await keyFor(userId);
    await expect(resolve(key.token)).resolves.toMatchObject({ userId });
    await invokeAs(db.orm, procedures.require('apiKeys.revoke'), await sessionPrincipal(db.orm, userId, org.id), { id: key.id });
    await expect(resolve(key.token)).rejects.toMatchObject(INVALID);
  });

  it('rejects a key once its expiry passes (database time)', async () => {
    const userId = await seedMember(db.orm, org, ['member']);
    const expiresAt = new Date(Date.now() + 1200);
    const key = await keyFor(userId, { fullAccess: true, expiresAt: expiresAt.toISOString() });
    const before = await resolve(key.token);
    expect(before.credential).toMatchObject({ expiresAt });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(resolve(key.token)).rejects.toMatchObject(INVALID);
  });

  it('rejects the key of an owner who is disabled, deleted or no longer a member', async () => {
    const disabled = await seedMember(db.orm, org, ['member']);
    const deleted = await seedMember(db.orm, org, ['member']);
    const removed = await seedMember(db.orm, org, ['member']);
    const keys = { disabled: await keyFor(disabled), deleted: await keyFor(deleted), removed: await keyFor(removed) };
    for (const key of Object.values(keys)) await expect(resolve(key.token)).resolves.toBeDefined();

    await sql('UPDATE users SET disabled_at = now() WHERE id = ?', [disabled]);
    await sql('UPDATE users SET deleted_at = now() WHERE id = ?', [deleted]);
    await sql('DELETE FROM memberships WHERE user_id = ?', [removed]);
    for (const key of Object.values(keys)) await expect(resolve(key.token)).rejects.toMatchObject(OWNER_CANNOT_ACT);

    // Re-enabling brings the key back: it was never touched.
    await sql('UPDATE users SET disabled_at = NULL WHERE id = ?', [disabled]);
    await expect(resolve(keys.disabled.token)).resolves.toMatchObject({ userId: disabled });
  });

  it('keeps a member with no roles authenticated but powerless', async () => {
    const userId = await seedMember(db.orm, org, ['member']);
    const key = await keyFor(userId);
    await sql('DELETE FROM role_grants WHERE membership_id IN (SELECT id FROM memberships WHERE user_id = ?)', [userId]);
    const principal = await resolve(key.token);
    expect(principal.permissions.size).toBe(0);
    expect(principal.roleIds).toEqual([]);
  });

  it('acts only in the organization the key is pinned to', async () => {
    const otherOrg = await seedOrganization(db.orm);
    const userId = await seedMember(db.orm, org, ['member']);
    await seedMembership(db.orm, otherOrg.id, userId, [otherOrg.roleIds.owner]);
    const principal = await resolve((await keyFor(userId)).token);
    expect(principal.organizationId).toBe(org.id);
    expect(principal.permissions.has('organization.manage')).toBe(false);
  });

  it('records last use at most once a minute, off the request path', async () => {
    const key = await keyFor(await seedMember(db.orm, org, ['member']));
    const lastUsed = async () =>
      (await sql('SELECT last_used_at FROM api_keys WHERE id = ?', [key.id]))[0].last_used_at as Date | string | null;
    expect(await lastUsed()).toBeNull();
    await resolve(key.token);
    let first: Date | string | null = null;
    for (let attempt = 0; attempt < 50 && first === null; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      first = await lastUsed();
    }
    expect(first).not.toBeNull();
    await resolve(key.token);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(new Date((await lastUsed())!).getTime()).toBe(new Date(first!).getTime());

    await sql(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = ?`, [key.id]);
    const stale = new Date((await lastUsed())!).getTime();
    await resolve(key.token);
    let refreshed = stale;
    for (let attempt = 0; attempt < 50 && refreshed === stale; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      refreshed = new Date((await lastUsed())!).getTime();
    }
    expect(refreshed).toBeGreaterThan(stale + 60_000);
  });

  describe('authenticateApiKey: the lookup, then one token from the key\'s bucket', () => {
    const bucketTokens = async (apiKeyId: string) =>
      (await sql('SELECT tokens FROM rate_limit_buckets WHERE bucket_key = ?', [apiKeyId]))[0] as { tokens: number } | undefined;
    const authenticate = (token: string, rateLimiter: RateLimiter, serviceAccountsEnabled = false) =>
      authenticateApiKey(db.orm.em.fork(), token, { serviceAccountsEnabled, logger: silentLogger, rateLimiter });

    it('with buckets in PostgreSQL, takes the token inside the lookup statement: one round trip', async () => {
      const limiter = new PostgresRateLimiter(db.orm, { ratePerSecond: 0.01, burst: 3 });
      const userId = await seedMember(db.orm, org, ['member']);
      const key = await keyFor(userId);
      const first = await authenticate(key.token, limiter);
      expect(first.principal).toMatchObject({ userId, organizationId: org.id });
      expect(first.rateLimit).toEqual({ allowed: true, limit: 3, remaining: 2, retryAfterSeconds: 0, resetSeconds: 100 });
      await new Promise((resolve) => setTimeout(resolve, 100)); // lets the first use's lastUsedAt write land

      let second: Awaited<ReturnType<typeof authenticate>> | undefined;
      const sent = await statementsOf(async () => {
        second = await authenticate(key.token, limiter);
      });
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/INSERT INTO rate_limit_buckets/);
      expect(second?.rateLimit).toMatchObject({ allowed: true, remaining: 1 });
      expect((await authenticate(key.token, limiter)).rateLimit).toMatchObject({ allowed: true, remaining: 0 });
      const denied = await authenticate(key.token, limiter);
      expect(denied.rateLimit).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
      expect(denied.rateLimit.retryAfterSeconds).toBeGreaterThanOrEqual(90); // one token at 0.01/s
    });

    it('draws on the same bucket as PostgresRateLimiter.take, keyed by the API key id', async () => {
      const limiter = new PostgresRateLimiter(db.orm, { ratePerSecond: 0.01, burst: 2 });
      const key = await keyFor(await seedMember(db.orm, org, ['member']));
      expect((await limiter.take(key.id)).remaining).toBe(1);
      expect((await authenticate(key.token, limiter)).rateLimit).toMatchObject({ allowed: true, remaining: 0 });
      expect((await limiter.take(key.id)).allowed).toBe(false);
    });

    it('takes nothing for a key that does not authenticate', async () => {
      const limiter = new PostgresRateLimiter(db.orm, { ratePerSecond: 0.01, burst: 5 });
      const revoked = await keyFor(await seedMember(db.orm, org, ['member']));
      await sql('UPDATE api_keys SET revoked_at = now() WHERE id = ?', [revoked.id]);
      const disabledOwner = await seedMember(db.orm, org, ['member']);
      const ofDisabled = await keyFor(disabledOwner);
      await sql('UPDATE users SET disabled_at = now() WHERE id = ?', [disabledOwner]);
      const removedOwner = await seedMember(db.orm, org, ['member']);
      const ofRemoved = await keyFor(removedOwner);
      await sql('DELETE FROM memberships WHERE user_id = ?', [removedOwner]);

      await expect(authenticate(revoked.token, limiter)).rejects.toMatchObject(INVALID);
      await expect(authenticate(ofDisabled.token, limiter)).rejects.toMatchObject(OWNER_CANNOT_ACT);
      await expect(authenticate(ofRemoved.token, limiter)).rejects.toMatchObject(OWNER_CANNOT_ACT);
      for (const key of [revoked, ofDisabled, ofRemoved]) expect(await bucketTokens(key.id)).toBeUndefined();
    });

    it("takes nothing for a service account's key while service accounts are off, and one token once they are on", async () => {
      const limiter = new PostgresRateLimiter(db.orm, { ratePerSecond: 0.01, burst: 5 });
      const key = await keyFor(await seedMember(db.orm, org, ['member']));
      const serviceAccountId = `svc_${key.id.replace(/-/g, '')}`;
      await sql(`INSERT INTO users (id, email, kind, display_name, created_at, updated_at) VALUES (?, ?, 'SERVICE', 'Robot', now(), now())`, [
        serviceAccountId,
        `${serviceAccountId}@service-accounts.invalid`,
      ]);
      await seedMembership(db.orm, org.id, serviceAccountId, [org.roleIds['read-only']]);
      await sql('UPDATE api_keys SET owner_user_id = ? WHERE id = ?', [serviceAccountId, key.id]);

      await expect(authenticate(key.token, limiter, false)).rejects.toMatchObject(OWNER_CANNOT_ACT);
      expect(await bucketTokens(key.id)).toBeUndefined();
      const admitted = await authenticate(key.token, limiter, true);
      expect(admitted.principal).toMatchObject({ userId: serviceAccountId, kind: 'SERVICE' });
      expect(admitted.rateLimit).toMatchObject({ allowed: true, remaining: 4 });
    });

    it('asks a PostgreSQL limiter on another database after the lookup, on its own connection', async () => {
      const elsewhere = new Pool({ connectionString: db.database.url, max: 1 });
      try {
        const limiter = new PostgresRateLimiter(elsewhere, { ratePerSecond: 0.01, burst: 2 });
        expect(limiter.keepsBucketsBeside(db.orm.em.fork())).toBe(false);
        const key = await keyFor(await seedMember(db.orm, org, ['member']));
        await authenticate(key.token, limiter); // the first use also writes lastUsedAt
        await new Promise((resolve) => setTimeout(resolve, 100));
        let second: Awaited<ReturnType<typeof authenticate>> | undefined;
        const sent = await statementsOf(async () => {
          second = await authenticate(key.token, limiter);
        });
        // The lookup alone on the application's connection, then the take on the limiter's own.
        expect(sent).toHaveLength(2);
        expect(sent[0]).not.toMatch(/rate_limit_buckets/);
        expect(sent[1]).toMatch(/INSERT INTO rate_limit_buckets/);
        expect(second?.rateLimit).toEqual({ allowed: true, limit: 2, remaining: 0, retryAfterSeconds: 0, resetSeconds: 200 });
        expect(await bucketTokens(key.id)).toBeDefined();
      } finally {
        await elsewhere.end();
      }
    });

    it('asks any other limiter after the lookup, for the key id, and only for a key that authenticates', async () => {
      const asked: string[] = [];
      const inMemory = new InMemoryRateLimiter({ ratePerSecond: 0.01, burst: 1 });
      const recording: RateLimiter = {
        take: (bucketKey) => {
          asked.push(bucketKey);
          return inMemory.take(bucketKey);
        },
      };
      const key = await keyFor(await seedMember(db.orm, org, ['member']));
      expect((await authenticate(key.token, recording)).rateLimit).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
      expect((await authenticate(key.token, recording)).rateLimit).toMatchObject({ allowed: false, remaining: 0 });
      await sql('UPDATE api_keys SET revoked_at = now() WHERE id = ?', [key.id]);
      await expect(authenticate(key.token, recording)).rejects.toMatchObject(INVALID);
      expect(asked).toEqual([key.id, key.id]);
    });
  });
});
