import { platformModule, ProcedureRegistry, type Principal } from '@mrp/platform';
import { createTestOrm, silentLogger, type TestOrm } from '@mrp/platform/testing';
import { authzModule } from '../authz-module';
import { ALL_PERMISSIONS } from '../rbac/permission-catalog';
import { apiKeyProcedures } from './api-key-procedures';
import type { CreatedApiKey } from './api-key-view';
import { resolveApiKeyPrincipal } from './resolve-api-key-principal';
import {
  invokeAs,
  seedMember,
  seedMembership,
  seedOrganization,
  seedRole,
  sessionPrincipal,
  type SeededOrganization,
} from './testing/identity-seed';

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
    const em = db.orm.em.fork();
    const execute = jest.spyOn(em, 'execute');
    await resolveApiKeyPrincipal(em, key.token, { serviceAccountsEnabled: false, logger: silentLogger });
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it('limits even an owner to the allowlist of a limited key (live permissions ∩ allowlist)', async () => {
    const ownerId = await seedMember(db.orm, org, ['owner']);
    const key = await keyFor(ownerId, { fullAccess: false, permissions: ['records.read', 'data-models.read'] });
    const principal = await resolve(key.token);
    expect([...principal.permissions].sort()).toEqual(['data-models.read', 'records.read']);
    expect(principal.credential).toMatchObject({ fullAccess: false, allowlist: ['data-models.read', 'records.read'] });

    const full = await resolve((await keyFor(ownerId)).token);
    expect([...full.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
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

    const em = db.orm.em.fork();
    const execute = jest.spyOn(em, 'execute');
    const last = key.token.at(-1) === 'a' ? 'b' : 'a';
    await expect(
      resolveApiKeyPrincipal(em, key.token.slice(0, -1) + last, { serviceAccountsEnabled: false, logger: silentLogger }),
    ).rejects.toMatchObject(INVALID);
    await expect(resolveApiKeyPrincipal(em, 'not-a-key', { serviceAccountsEnabled: false })).rejects.toMatchObject(INVALID);
    expect(execute).not.toHaveBeenCalled();
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
});
