import { platformModule, ProcedureRegistry, type Principal } from '@mrp/platform';
import { createTestOrm, testPrincipal, type TestOrm } from '@mrp/platform/testing';
import { authzModule } from '../authz-module';
import { createMemberProcedures } from '../organizations/member-procedures';
import {
  holdTransaction,
  invokeAs,
  seedMember,
  seedOrganization,
  sessionPrincipal,
  settle,
  waitForLockWaiters,
  type SeededOrganization,
} from '@mrp/authz/testing';
import { apiKeyProcedures } from './api-key-procedures';
import { MAX_ACTIVE_API_KEYS_PER_OWNER } from './api-key-store';
import type { ApiKeyView, CreatedApiKey } from './api-key-view';
import { hashApiKeyToken } from './api-key-token';

describe('apiKeys.* procedures', () => {
  let db: TestOrm;
  let org: SeededOrganization;
  let otherOrg: SeededOrganization;
  let member: Principal;
  let colleague: Principal;
  const procedures = new ProcedureRegistry([...apiKeyProcedures, ...createMemberProcedures()]);
  const call = <T>(name: string, principal: Principal, input: unknown) => invokeAs<T>(db.orm, procedures.require(name), principal, input);

  beforeAll(async () => {
    db = await createTestOrm([platformModule, authzModule]);
    org = await seedOrganization(db.orm);
    otherOrg = await seedOrganization(db.orm);
    member = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['member']), org.id);
    colleague = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['admin']), org.id);
  });
  afterAll(() => db.close());

  const storedRow = async (id: string) =>
    (await db.orm.em.fork().execute<Array<Record<string, unknown>>>('SELECT * FROM api_keys WHERE id = ?', [id]))[0];

  it('creates a full-access key pinned to the active organization and returns the token once', async () => {
    const created = await call<CreatedApiKey>('apiKeys.create', member, { name: '  CI deploys ', fullAccess: true });
    expect(created).toMatchObject({ name: 'CI deploys', fullAccess: true, permissions: [], expiresAt: null, status: 'active' });
    expect(created.token).toMatch(/^mrk_[0-9A-Za-z]{49}$/);
    expect(created.prefix).toBe(created.token.slice(0, 12));
    const row = await storedRow(created.id);
    expect(row).toMatchObject({
      organization_id: org.id,
      owner_user_id: member.userId,
      created_by: member.userId,
      token_hash: hashApiKeyToken(created.token),
      full_access: true,
    });
  });

  it('never stores the token: no column of the row holds it or its random part', async () => {
    const created = await call<CreatedApiKey>('apiKeys.create', member, { name: 'scan me', fullAccess: true });
    const row = await storedRow(created.id);
    const everything = JSON.stringify(row);
    expect(everything).not.toContain(created.token);
    expect(everything).not.toContain(created.token.slice(4, 47));
    expect(everything).not.toContain(created.token.slice(12));
  });

  it('creates a limited key with a sorted allowlist and an expiry', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await call<CreatedApiKey>('apiKeys.create', member, {
      name: 'reader',
      fullAccess: false,
      permissions: ['records.read', 'data-models.read'],
      expiresAt,
    });
    expect(created).toMatchObject({ fullAccess: false, permissions: ['data-models.read', 'records.read'], expiresAt });
    expect(await storedRow(created.id)).toMatchObject({ permissions: ['data-models.read', 'records.read'] });
  });

  it('refuses a limited key with a permission its creator lacks, naming it', async () => {
    await expect(
      call('apiKeys.create', member, { name: 'too much', fullAccess: false, permissions: ['records.read', 'records.purge'] }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'permissions', code: 'invalid_option', message: '"records.purge" is not a permission you hold' }],
    });
  });

  it('refuses unknown permissions, an empty allowlist, an allowlist on a full key and a past expiry', async () => {
    await expect(
      call('apiKeys.create', member, { name: 'x', fullAccess: false, permissions: ['records.read', 'records.fly'] }),
    ).rejects.toMatchObject({ details: [expect.objectContaining({ message: '"records.fly" is not a known permission' })] });
    await expect(call('apiKeys.create', member, { name: 'x', fullAccess: false })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'permissions', code: 'required' })],
    });
    await expect(call('apiKeys.create', member, { name: 'x', fullAccess: false, permissions: [] })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'permissions', code: 'required' })],
    });
    await expect(call('apiKeys.create', member, { name: 'x', fullAccess: true, permissions: ['records.read'] })).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'permissions' })],
    });
    await expect(
      call('apiKeys.create', member, { name: 'x', fullAccess: true, expiresAt: new Date(Date.now() - 1000).toISOString() }),
    ).rejects.toMatchObject({ details: [expect.objectContaining({ field: 'expiresAt', code: 'out_of_range' })] });
    await expect(call('apiKeys.create', member, { name: '   ', fullAccess: true, token: 'mine' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: expect.arrayContaining([
        expect.objectContaining({ field: 'name' }),
        expect.objectContaining({ field: 'token', code: 'unknown_field' }),
      ]),
    });
  });

  it('needs api-keys.manage', async () => {
    const outsider = testPrincipal({ userId: member.userId, organizationId: org.id, permissions: new Set(['records.read']) });
    await expect(call('apiKeys.create', outsider, { name: 'x', fullAccess: true })).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('refuses to manage keys when the caller itself authenticated with an API key', async () => {
    const viaKey = {
      ...member,
      credential: {
        type: 'api-key' as const,
        apiKeyId: '00000000-0000-7000-8000-000000000000',
        name: 'k',
        prefix: 'mrk_00000000',
        fullAccess: false,
        allowlist: ['api-keys.manage'],
        expiresAt: null,
      },
    };
    await expect(call('apiKeys.create', viaKey, { name: 'escape', fullAccess: true })).rejects.toMatchObject({ code: 'forbidden' });
  });

  it("lists only the caller's keys in the active organization, newest first, without token or hash", async () => {
    const mine = await call<CreatedApiKey>('apiKeys.create', member, { name: 'listed', fullAccess: true });
    const theirs = await call<CreatedApiKey>('apiKeys.create', colleague, { name: 'not mine', fullAccess: true });
    const { items } = await call<{ items: ApiKeyView[] }>('apiKeys.list', member, {});
    expect(items[0].id).toBe(mine.id);
    expect(items.map((key) => key.id)).not.toContain(theirs.id);
    for (const key of items) {
      expect(Object.keys(key).sort()).toEqual(
        ['createdAt', 'expiresAt', 'fullAccess', 'id', 'lastUsedAt', 'name', 'permissions', 'prefix', 'revokedAt', 'status'].sort(),
      );
      expect(JSON.stringify(key)).not.toMatch(/mrk_[0-9A-Za-z]{20}|[0-9a-f]{64}/);
    }
    const inOtherOrg = { ...member, organizationId: otherOrg.id };
    expect((await call<{ items: ApiKeyView[] }>('apiKeys.list', inOtherOrg, {})).items).toEqual([]);
  });

  it('revokes an own key, keeping the first revocation time', async () => {
    const created = await call<CreatedApiKey>('apiKeys.create', member, { name: 'to revoke', fullAccess: true });
    const revoked = await call<ApiKeyView>('apiKeys.revoke', member, { id: created.id });
    expect(revoked).toMatchObject({ id: created.id, status: 'revoked', revokedAt: expect.any(String) });
    const again = await call<ApiKeyView>('apiKeys.revoke', member, { id: created.id });
    expect(again.revokedAt).toBe(revoked.revokedAt);
    expect((await storedRow(created.id)).revoked_at).not.toBeNull();
  });

  it("cannot revoke another user's key, even as an admin: not_found, and the key stays live", async () => {
    const theirs = await call<CreatedApiKey>('apiKeys.create', member, { name: 'member key', fullAccess: true });
    await expect(call('apiKeys.revoke', colleague, { id: theirs.id })).rejects.toMatchObject({
      code: 'not_found',
      message: 'API key not found',
    });
    expect((await storedRow(theirs.id)).revoked_at).toBeNull();
    await expect(call('apiKeys.revoke', member, { id: '0190a0a0-0000-7000-8000-000000000000' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(call('apiKeys.revoke', member, { id: 'not-a-uuid' })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('refuses an expiresAt the date-time format admits but no Date can hold (a leap second) with 400, not 500', async () => {
    await expect(call('apiKeys.create', member, { name: 'leap', fullAccess: true, expiresAt: '2030-06-30T23:59:60Z' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'expiresAt', code: 'invalid_format', message: 'must be a valid date-time' }],
    });
  });

  it('of two concurrent revokes, the second keeps the time the first one set', async () => {
    const created = await call<CreatedApiKey>('apiKeys.create', member, { name: 'revoked twice', fullAccess: true });
    const firstRevokedAt = '2024-01-02T03:04:05.000Z';
    const first = await holdTransaction(db.database.directUrl);
    try {
      await first.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [firstRevokedAt, created.id]);
      const second = settle(call<ApiKeyView>('apiKeys.revoke', member, { id: created.id }));
      await waitForLockWaiters(db.orm, 1);
      await first.commit();
      expect(await second).toEqual({ value: expect.objectContaining({ status: 'revoked', revokedAt: firstRevokedAt }) });
    } finally {
      await first.rollback();
    }
    expect(new Date((await storedRow(created.id)).revoked_at as string).toISOString()).toBe(firstRevokedAt);
  });

  describe(`at most ${MAX_ACTIVE_API_KEYS_PER_OWNER} active keys per owner in an organization`, () => {
    /** Stored straight away: `count` live keys, and revoked and expired ones that must not count. */
    const seedKeys = async (owner: Principal, count: number) => {
      await db.orm.em.fork().execute(
        `INSERT INTO api_keys (id, organization_id, owner_user_id, name, token_hash, prefix, full_access, permissions, expires_at, revoked_at, created_by, created_at)
         SELECT gen_random_uuid(), ?, ?, 'seeded ' || n, encode(sha256(convert_to(random()::text || n, 'UTF8')), 'hex'), 'mrk_seeded00', true, '{}',
                CASE WHEN n > ? + 5 THEN now() - interval '1 day' END, CASE WHEN n > ? AND n <= ? + 5 THEN now() END, ?, now()
           FROM generate_series(1, ? + 10) AS n`,
        [org.id, owner.userId, count, count, count, owner.userId, count],
      );
    };

    it('refuses the next one with 409 conflict, saying how many; a revoked one makes room', async () => {
      const owner = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['member']), org.id);
      await seedKeys(owner, MAX_ACTIVE_API_KEYS_PER_OWNER - 1);
      const last = await call<CreatedApiKey>('apiKeys.create', owner, { name: 'the hundredth', fullAccess: true });
      await expect(call('apiKeys.create', owner, { name: 'one too many', fullAccess: true })).rejects.toMatchObject({
        code: 'conflict',
        message: `At most ${MAX_ACTIVE_API_KEYS_PER_OWNER} active API keys per owner in an organization; revoke one first`,
      });
      // Another owner, and the same owner in another organization, have their own count.
      await expect(call('apiKeys.create', colleague, { name: 'colleague', fullAccess: true })).resolves.toMatchObject({ status: 'active' });
      await call('apiKeys.revoke', owner, { id: last.id });
      await expect(call('apiKeys.create', owner, { name: 'in its place', fullAccess: true })).resolves.toMatchObject({ status: 'active' });
    });

    it('of two creations at once with room for one, one is refused', async () => {
      const owner = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['member']), org.id);
      await seedKeys(owner, MAX_ACTIVE_API_KEYS_PER_OWNER - 1);
      // Holds the first creation at its INSERT (the foreign-key check on the owner), after it counted.
      const blocker = await holdTransaction(db.database.directUrl);
      let first: Promise<{ value?: CreatedApiKey; error?: unknown }> | undefined;
      let second: Promise<{ value?: CreatedApiKey; error?: unknown }> | undefined;
      try {
        await blocker.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [owner.userId]);
        first = settle(call<CreatedApiKey>('apiKeys.create', owner, { name: 'first', fullAccess: true }));
        await waitForLockWaiters(db.orm, 1);
        second = settle(call<CreatedApiKey>('apiKeys.create', owner, { name: 'second', fullAccess: true }));
        await waitForLockWaiters(db.orm, 2);
      } finally {
        await blocker.rollback();
      }
      expect((await first)?.error).toBeUndefined();
      expect((await second)?.error).toMatchObject({ code: 'conflict' });
      const [{ live }] = await db.orm.em
        .fork()
        .execute<Array<{ live: number }>>('SELECT count(*)::int AS live FROM api_keys WHERE owner_user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())', [owner.userId]);
      expect(live).toBe(MAX_ACTIVE_API_KEYS_PER_OWNER);
    });
  });

  describe('racing organizations.removeMember', () => {
    let owner: Principal;
    beforeAll(async () => {
      owner = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['owner']), org.id);
    });

    it('a key created while the member is being removed is revoked by the removal', async () => {
      const leaving = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['member']), org.id);
      // Holds the key's INSERT at its foreign-key check on the owner, after apiKeys.create locked the membership.
      const blocker = await holdTransaction(db.database.directUrl);
      let creation: Promise<{ value?: CreatedApiKey; error?: unknown }> | undefined;
      let removal: Promise<{ value?: unknown; error?: unknown }> | undefined;
      try {
        await blocker.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [leaving.userId]);
        creation = settle(call<CreatedApiKey>('apiKeys.create', leaving, { name: 'racing', fullAccess: true }));
        await waitForLockWaiters(db.orm, 1);
        removal = settle(call('organizations.removeMember', owner, { userId: leaving.userId }));
        // The removal must wait for the creation: it deletes the membership the creation holds.
        await waitForLockWaiters(db.orm, 2);
      } finally {
        await blocker.rollback();
      }
      const created = await creation;
      expect(created?.error).toBeUndefined();
      expect((await removal)?.error).toBeUndefined();
      expect((await storedRow(created!.value!.id)).revoked_at).not.toBeNull();
    });

    it('a key asked for once the removal has deleted the membership is refused as for a non-member', async () => {
      const leaving = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['member']), org.id);
      const existing = await call<CreatedApiKey>('apiKeys.create', leaving, { name: 'old', fullAccess: true });
      // Holds the removal at its revoke, after it deleted the membership.
      const blocker = await holdTransaction(db.database.directUrl);
      let removal: Promise<{ value?: unknown; error?: unknown }> | undefined;
      let creation: Promise<{ value?: CreatedApiKey; error?: unknown }> | undefined;
      try {
        await blocker.query('SELECT id FROM api_keys WHERE id = $1 FOR UPDATE', [existing.id]);
        removal = settle(call('organizations.removeMember', owner, { userId: leaving.userId }));
        await waitForLockWaiters(db.orm, 1);
        creation = settle(call<CreatedApiKey>('apiKeys.create', leaving, { name: 'too late', fullAccess: true }));
        await waitForLockWaiters(db.orm, 2);
      } finally {
        await blocker.rollback();
      }
      expect((await removal)?.error).toBeUndefined();
      expect((await creation)?.error).toMatchObject({ code: 'not_found', message: 'Organization not found' });
      const live = await db.orm.em
        .fork()
        .execute('SELECT id FROM api_keys WHERE owner_user_id = ? AND revoked_at IS NULL', [leaving.userId]);
      expect(live).toEqual([]);
    });
  });
});
