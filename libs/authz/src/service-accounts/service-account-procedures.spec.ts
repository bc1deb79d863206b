import { FeatureFlagStore, platformModule, ProcedureRegistry, type Principal } from '@mrp/platform';
import { createTestOrm, silentLogger, type TestOrm } from '@mrp/platform/testing';
import { authzModule } from '../authz-module';
import { apiKeyProcedures } from '../api-keys/api-key-procedures';
import type { ApiKeyView, CreatedApiKey } from '../api-keys/api-key-view';
import { resolveApiKeyPrincipal } from '../api-keys/resolve-api-key-principal';
import {
  invokeAs,
  RecordingDispatcher,
  RowAccessRoleSet,
  seedMember,
  seedOrganization,
  seedRole,
  sessionPrincipal,
  type SeededOrganization,
} from '@mrp/authz/testing';
import { createServiceAccountProcedures } from './create-service-account-procedures';
import type { ServiceAccountView } from './service-account-view';

describe('service accounts', () => {
  let db: TestOrm;
  let flags: FeatureFlagStore;
  let org: SeededOrganization;
  let admin: Principal;
  let member: Principal;
  let procedures: ProcedureRegistry;
  const rowAccessRoles = new RowAccessRoleSet();

  const call = <T>(name: string, principal: Principal, input: unknown, dispatcher?: RecordingDispatcher) =>
    invokeAs<T>(db.orm, procedures.require(name), principal, input, dispatcher);
  const sql = (query: string, params: unknown[] = []) => db.orm.em.fork().execute(query, params);
  const setFlag = (enabled: boolean) =>
    db.orm.em.fork().transactional((em) => flags.set(em, 'public-api.service-accounts', enabled, 'test'));
  const resolve = (token: string, serviceAccountsEnabled = true) =>
    resolveApiKeyPrincipal(db.orm.em.fork(), token, { serviceAccountsEnabled, logger: silentLogger });
  const createAccount = (input: Record<string, unknown> = {}) =>
    call<ServiceAccountView>('serviceAccounts.create', admin, { displayName: 'Importer', ...input });

  beforeAll(async () => {
    db = await createTestOrm([platformModule, authzModule]);
    flags = new FeatureFlagStore(db.orm);
    procedures = new ProcedureRegistry([...apiKeyProcedures, ...createServiceAccountProcedures({ rowAccessRoles })]);
    org = await seedOrganization(db.orm);
    admin = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['admin']), org.id);
    member = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['member']), org.id);
  });
  afterAll(() => db.close());

  describe('while public-api.service-accounts is off', () => {
    it('answers not_found for every procedure, even to an owner with valid input', async () => {
      const owner = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['owner']), org.id);
      const id = 'svc_0123456789abcdef0123456789abcdef';
      const keyId = '0190a0a0-0000-7000-8000-000000000000';
      const calls: Array<[string, unknown]> = [
        ['serviceAccounts.list', {}],
        ['serviceAccounts.create', { displayName: 'x' }],
        ['serviceAccounts.update', { id, displayName: 'y' }],
        ['serviceAccounts.disable', { id }],
        ['serviceAccounts.enable', { id }],
        ['serviceAccounts.delete', { id }],
        ['serviceAccounts.keys.list', { serviceAccountId: id }],
        ['serviceAccounts.keys.create', { serviceAccountId: id, name: 'k', fullAccess: true }],
        ['serviceAccounts.keys.revoke', { serviceAccountId: id, id: keyId }],
      ];
      for (const [name, input] of calls) {
        await expect(call(name, owner, input)).rejects.toMatchObject({ code: 'not_found', message: `Procedure ${name} not found` });
        await expect(call(name, member, input)).rejects.toMatchObject({ code: 'not_found' });
      }
      expect(await sql(`SELECT id FROM users WHERE kind = 'SERVICE'`)).toEqual([]);
    });
  });

  describe('while the flag is on', () => {
    beforeAll(() => setFlag(true));

    it('needs api-keys.manage-service-accounts', async () => {
      await expect(call('serviceAccounts.list', member, {})).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Missing permission api-keys.manage-service-accounts',
      });
      await expect(call('serviceAccounts.create', member, { displayName: 'x' })).rejects.toMatchObject({ code: 'forbidden' });
    });

    it('creates a SERVICE user with a svc_ id, an undeliverable address, a membership and its roles', async () => {
      const dispatcher = new RecordingDispatcher();
      const account = await call<ServiceAccountView>(
        'serviceAccounts.create',
        admin,
        { displayName: ' Nightly import ', description: 'Loads the ERP export', roleKeys: ['member', 'read-only'] },
        dispatcher,
      );
      expect(account).toEqual({
        id: expect.stringMatching(/^svc_[0-9a-f]{32}$/),
        email: `${account.id}@service-accounts.invalid`,
        displayName: 'Nightly import',
        description: 'Loads the ERP export',
        roleKeys: ['member', 'read-only'],
        status: 'active',
        disabledAt: null,
        createdBy: admin.userId,
        createdAt: expect.any(String),
      });
      const [user] = await sql('SELECT kind, email, created_by FROM users WHERE id = ?', [account.id]);
      expect(user).toEqual({ kind: 'SERVICE', email: account.email, created_by: admin.userId });
      expect(await sql('SELECT organization_id FROM memberships WHERE user_id = ?', [account.id])).toEqual([
        { organization_id: org.id },
      ]);
      expect(dispatcher.published).toEqual([
        expect.objectContaining({
          type: 'organization.member-joined',
          organizationId: org.id,
          userId: account.id,
          payload: { organizationId: org.id, userId: account.id, roleKeys: ['member', 'read-only'] },
        }),
      ]);
      const { items } = await call<{ items: ServiceAccountView[] }>('serviceAccounts.list', admin, {});
      expect(items.map((item) => item.id)).toContain(account.id);
    });

    it('refuses unknown roles (400) and roles carrying permissions the caller lacks (403), writing nothing', async () => {
      const before = await sql(`SELECT count(*)::int AS n FROM users WHERE kind = 'SERVICE'`);
      await expect(createAccount({ roleKeys: ['owner', 'ghost'] })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'roleKeys', code: 'invalid_option', message: '"ghost" is not a role of this organization' }],
      });
      await expect(createAccount({ roleKeys: ['member', 'owner'] })).rejects.toMatchObject({
        code: 'forbidden',
        message: 'You cannot grant permissions you do not hold: organization.manage',
      });
      expect(await sql(`SELECT count(*)::int AS n FROM users WHERE kind = 'SERVICE'`)).toEqual(before);
    });

    it("gives its keys a SERVICE principal with the account's own roles' permissions", async () => {
      await seedRole(db.orm, org.id, 'importer', ['records.create', 'records.read']);
      const account = await createAccount({ roleKeys: ['importer'] });
      const key = await call<CreatedApiKey>('serviceAccounts.keys.create', admin, {
        serviceAccountId: account.id,
        name: 'prod',
        fullAccess: true,
      });
      const principal = await resolve(key.token);
      expect(principal).toMatchObject({
        userId: account.id,
        kind: 'SERVICE',
        email: account.email,
        displayName: 'Importer',
        organizationId: org.id,
        isPlatformAdmin: false,
      });
      expect([...principal.permissions].sort()).toEqual(['records.create', 'records.read']);
      expect((await sql('SELECT created_by, owner_user_id FROM api_keys WHERE id = ?', [key.id]))[0]).toEqual({
        created_by: admin.userId,
        owner_user_id: account.id,
      });
    });

    it('makes its keys inert while the flag is off (authentication passes serviceAccountsEnabled)', async () => {
      const account = await createAccount({ roleKeys: ['read-only'] });
      const key = await call<CreatedApiKey>('serviceAccounts.keys.create', admin, { serviceAccountId: account.id, name: 'k', fullAccess: true });
      await expect(resolve(key.token, true)).resolves.toMatchObject({ userId: account.id });
      await expect(resolve(key.token, false)).rejects.toMatchObject({ code: 'unauthorized' });
    });

    it('disabling kills all its keys at once without touching them; enabling brings them back', async () => {
      const account = await createAccount({ roleKeys: ['read-only'] });
      const keys = await Promise.all(
        ['a', 'b'].map((name) =>
          call<CreatedApiKey>('serviceAccounts.keys.create', admin, { serviceAccountId: account.id, name, fullAccess: true }),
        ),
      );
      const dispatcher = new RecordingDispatcher();
      const disabled = await call<ServiceAccountView>('serviceAccounts.disable', admin, { id: account.id }, dispatcher);
      expect(disabled).toMatchObject({ status: 'disabled', disabledAt: expect.any(String) });
      expect(dispatcher.published.map((event) => event.type)).toEqual(['user.disabled']);
      for (const key of keys) await expect(resolve(key.token)).rejects.toMatchObject({ code: 'unauthorized' });
      expect(await sql('SELECT count(*)::int AS n FROM api_keys WHERE owner_user_id = ? AND revoked_at IS NULL', [account.id])).toEqual([
        { n: 2 },
      ]);

      const again = await call<ServiceAccountView>('serviceAccounts.disable', admin, { id: account.id }, dispatcher);
      expect(again.disabledAt).toBe(disabled.disabledAt);
      expect(dispatcher.published).toHaveLength(1);

      await expect(call('serviceAccounts.enable', admin, { id: account.id })).resolves.toMatchObject({ status: 'active', disabledAt: null });
      for (const key of keys) await expect(resolve(key.token)).resolves.toMatchObject({ userId: account.id });
    });

    it('updates the name and description', async () => {
      const account = await createAccount();
      await expect(
        call('serviceAccounts.update', admin, { id: account.id, displayName: 'Renamed', description: null }),
      ).resolves.toMatchObject({ displayName: 'Renamed', description: null });
      await expect(call('serviceAccounts.update', admin, { id: account.id })).rejects.toMatchObject({ code: 'validation_failed' });
    });

    it('deleting revokes its keys and hides it everywhere', async () => {
      const account = await createAccount({ roleKeys: ['read-only'] });
      const key = await call<CreatedApiKey>('serviceAccounts.keys.create', admin, { serviceAccountId: account.id, name: 'k', fullAccess: true });
      await expect(call('serviceAccounts.delete', admin, { id: account.id })).resolves.toEqual({ id: account.id, deleted: true, revokedKeys: 1 });
      const [row] = await sql('SELECT deleted_at FROM users WHERE id = ?', [account.id]);
      expect(row.deleted_at).not.toBeNull();
      expect((await sql('SELECT revoked_at FROM api_keys WHERE id = ?', [key.id]))[0].revoked_at).not.toBeNull();
      await expect(resolve(key.token)).rejects.toMatchObject({ code: 'unauthorized' });
      const { items } = await call<{ items: ServiceAccountView[] }>('serviceAccounts.list', admin, {});
      expect(items.map((item) => item.id)).not.toContain(account.id);
      for (const name of ['serviceAccounts.disable', 'serviceAccounts.delete']) {
        await expect(call(name, admin, { id: account.id })).rejects.toMatchObject({ code: 'not_found' });
      }
      await expect(call('serviceAccounts.keys.list', admin, { serviceAccountId: account.id })).rejects.toMatchObject({ code: 'not_found' });
    });

    it("keys.* never reach a human's personal keys", async () => {
      const humanKey = await call<CreatedApiKey>('apiKeys.create', member, { name: 'personal', fullAccess: true });
      const account = await createAccount();
      const accountKey = await call<CreatedApiKey>('serviceAccounts.keys.create', admin, {
        serviceAccountId: account.id,
        name: 'svc',
        fullAccess: false,
        permissions: ['records.read'],
      });
      const { items } = await call<{ items: ApiKeyView[] }>('serviceAccounts.keys.list', admin, { serviceAccountId: account.id });
      expect(items.map((item) => item.id)).toEqual([accountKey.id]);
      expect(JSON.stringify(items)).not.toContain(accountKey.token);

      await expect(
        call('serviceAccounts.keys.revoke', admin, { serviceAccountId: account.id, id: humanKey.id }),
      ).rejects.toMatchObject({ code: 'not_found', message: 'API key not found' });
      // A human id is not a service-account id at all.
      await expect(call('serviceAccounts.keys.list', admin, { serviceAccountId: member.userId })).rejects.toMatchObject({
        code: 'validation_failed',
      });
      expect((await sql('SELECT revoked_at FROM api_keys WHERE id = ?', [humanKey.id]))[0].revoked_at).toBeNull();

      await expect(
        call('serviceAccounts.keys.revoke', admin, { serviceAccountId: account.id, id: accountKey.id }),
      ).resolves.toMatchObject({ id: accountKey.id, status: 'revoked' });
    });

    it("does not reach another organization's service accounts", async () => {
      const account = await createAccount();
      const otherOrg = await seedOrganization(db.orm);
      const otherAdmin = await sessionPrincipal(db.orm, await seedMember(db.orm, otherOrg, ['admin']), otherOrg.id);
      await expect(call('serviceAccounts.disable', otherAdmin, { id: account.id })).rejects.toMatchObject({ code: 'not_found' });
      await expect(
        call('serviceAccounts.keys.create', otherAdmin, { serviceAccountId: account.id, name: 'k', fullAccess: true }),
      ).rejects.toMatchObject({ code: 'not_found' });
      expect((await call<{ items: ServiceAccountView[] }>('serviceAccounts.list', otherAdmin, {})).items).toEqual([]);
    });

    it('only lets a caller hand a key authority they hold themselves', async () => {
      const owner = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['owner']), org.id);
      const powerful = await call<ServiceAccountView>('serviceAccounts.create', owner, { displayName: 'Root', roleKeys: ['owner'] });
      await expect(
        call('serviceAccounts.keys.create', admin, { serviceAccountId: powerful.id, name: 'k', fullAccess: true }),
      ).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'fullAccess', message: expect.stringContaining('organization.manage') })],
      });
      await expect(
        call('serviceAccounts.keys.create', admin, {
          serviceAccountId: powerful.id,
          name: 'k',
          fullAccess: false,
          permissions: ['organization.manage'],
        }),
      ).rejects.toMatchObject({ details: [expect.objectContaining({ message: '"organization.manage" is not a permission you hold' })] });
      const limited = await call<CreatedApiKey>('serviceAccounts.keys.create', admin, {
        serviceAccountId: powerful.id,
        name: 'k',
        fullAccess: false,
        permissions: ['records.read'],
      });
      expect([...(await resolve(limited.token)).permissions]).toEqual(['records.read']);
    });
  });
});
