import { FeatureFlagStore, platformModule, ProcedureRegistry, type Principal } from '@mrp/platform';
import { createTestOrm, silentLogger, type TestOrm } from '@mrp/platform/testing';
import { authzModule } from '../authz-module';
import { apiKeyProcedures } from '../api-keys/api-key-procedures';
import type { ApiKeyView, CreatedApiKey } from '../api-keys/api-key-view';
import { resolveApiKeyPrincipal } from '../api-keys/resolve-api-key-principal';
import {
  holdTransaction,
  invokeAs,
  RecordingDispatcher,
  RowAccessRoleSet,
  seedHuman,
  seedMember,
  seedMembership,
  seedOrganization,
  seedRole,
  sessionPrincipal,
  settle,
  waitForLockWaiters,
  type SeededOrganization,
} from '@mrp/authz/testing';
import type { NotificationMessage, NotificationScope, UserNotifier } from '../notifier/user-notifier';
import { createMemberProcedures } from '../organizations/member-procedures';
import { createGrantProcedures } from '../rbac/grant-procedures';
import { createServiceAccountProcedures } from './create-service-account-procedures';
import type { ServiceAccountView } from './service-account-view';

class RecordingNotifier implements UserNotifier {
  sent: Array<{ userIds: readonly string[]; message: NotificationMessage }> = [];
  async notify(_scope: NotificationScope, userIds: readonly string[], message: NotificationMessage) {
    this.sent.push({ userIds, message });
  }
}

/** Who may do what to a service account, and what deleting one leaves behind. */
describe('service-account authority', () => {
  let db: TestOrm;
  let org: SeededOrganization;
  const rowAccessRoles = new RowAccessRoleSet();
  let owner: Principal;
  let admin: Principal;
  let procedures: ProcedureRegistry;
  const notifier = new RecordingNotifier();

  const call = <T = Record<string, unknown>>(name: string, principal: Principal, input: unknown, dispatcher?: RecordingDispatcher) =>
    invokeAs<T>(db.orm, procedures.require(name), principal, input, dispatcher);
  const sql = <T extends object = Record<string, unknown>>(query: string, params: unknown[] = []) =>
    db.orm.em.fork().execute<T[]>(query, params);
  const resolve = (token: string) => resolveApiKeyPrincipal(db.orm.em.fork(), token, { serviceAccountsEnabled: true, logger: silentLogger });
  const createAccount = (by: Principal, roleKeys: string[] = []) =>
    call<ServiceAccountView>('serviceAccounts.create', by, { displayName: 'Robot', roleKeys });
  const createKey = (by: Principal, serviceAccountId: string, access: object = { fullAccess: true }) =>
    call<CreatedApiKey>('serviceAccounts.keys.create', by, { serviceAccountId, name: 'k', ...access });
  const liveKeysOf = (userId: string) => sql('SELECT id FROM api_keys WHERE owner_user_id = ? AND revoked_at IS NULL', [userId]);
  const serviceAccountCount = async () => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE kind = 'SERVICE'`))[0].n;

  beforeAll(async () => {
    db = await createTestOrm([platformModule, authzModule]);
    procedures = new ProcedureRegistry([
      ...apiKeyProcedures,
      ...createServiceAccountProcedures({ rowAccessRoles }),
      ...createGrantProcedures({ notifier, rowAccessRoles }),
      ...createMemberProcedures({ notifier }),
    ]);
    await db.orm.em.fork().transactional((em) => new FeatureFlagStore(db.orm).set(em, 'public-api.service-accounts', true, 'test'));
    org = await seedOrganization(db.orm);
    owner = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['owner']), org.id);
    admin = await sessionPrincipal(db.orm, await seedMember(db.orm, org, ['admin']), org.id);
  });
  afterAll(() => db.close());
  beforeEach(() => {
    notifier.sent = [];
  });

  describe('serviceAccounts.create with roleKeys grants roles as rbac.roles.assign does', () => {
    it('needs rbac.manage when it gives roles, and not otherwise', async () => {
      const roleId = await seedRole(db.orm, org.id, 'robot-keeper', ['api-keys.manage-service-accounts', 'records.read']);
      const keeperId = await seedHuman(db.orm);
      await seedMembership(db.orm, org.id, keeperId, [roleId]);
      const keeper = await sessionPrincipal(db.orm, keeperId, org.id);
      const before = await serviceAccountCount();
      await expect(createAccount(keeper, ['read-only'])).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Missing permission rbac.manage',
      });
      expect(await serviceAccountCount()).toBe(before);
      await expect(createAccount(keeper)).resolves.toMatchObject({ roleKeys: [] });
    });

    it('refuses a role carrying a permission the caller lacks with the very error rbac.roles.assign gives', async () => {
      const existing = await createAccount(admin);
      const viaAssign = await call('rbac.roles.assign', admin, { userId: existing.id, roleKey: 'owner' }).catch((error: unknown) => error);
      const viaCreate = await createAccount(admin, ['read-only', 'owner']).catch((error: unknown) => error);
      expect(viaAssign).toMatchObject({ code: 'forbidden', message: 'You cannot grant permissions you do not hold: organization.manage' });
      expect(viaCreate).toMatchObject({ code: (viaAssign as { code: string }).code, message: (viaAssign as Error).message });
    });

    it('still answers 400 validation_failed for role keys the organization does not have', async () => {
      await expect(createAccount(admin, ['read-only', 'ghost'])).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'roleKeys', code: 'invalid_option', message: '"ghost" is not a role of this organization' }],
      });
    });
  });

  describe('rbac.roles.assign on an account made by serviceAccounts.create', () => {
    it("changes the account's keys on their next request and never notifies it", async () => {
      const account = await createAccount(admin, ['read-only']);
      const key = await createKey(admin, account.id);
      expect((await resolve(key.token)).permissions.has('records.create')).toBe(false);

      const dispatcher = new RecordingDispatcher();
      await expect(call('rbac.roles.assign', admin, { userId: account.id, roleKey: 'member' }, dispatcher)).resolves.toEqual({
        userId: account.id,
        roleKeys: ['member', 'read-only'],
      });
      expect(dispatcher.published).toEqual([
        expect.objectContaining({ type: 'rbac.role-assigned', payload: expect.objectContaining({ userId: account.id, roleKey: 'member' }) }),
      ]);
      expect((await resolve(key.token)).permissions.has('records.create')).toBe(true);
      await expect(call('serviceAccounts.list', admin, {})).resolves.toMatchObject({
        items: expect.arrayContaining([expect.objectContaining({ id: account.id, roleKeys: ['member', 'read-only'] })]),
      });

      await call('organizations.removeMember', admin, { userId: account.id });
      await expect(resolve(key.token)).rejects.toMatchObject({ code: 'unauthorized' });
      expect(notifier.sent).toEqual([]);
    });
  });

  describe('nobody manages a service account holding permissions they do not hold', () => {
    it('an admin cannot rename, disable, enable or delete an owner-level account; an owner can', async () => {
      const root = await createAccount(owner, ['owner']);
      const refusal = (action: string) => ({
        code: 'forbidden',
        message: `You cannot ${action} a service account holding permissions you do not hold: organization.manage`,
      });
      await expect(call('serviceAccounts.update', admin, { id: root.id, displayName: 'Mine now' })).rejects.toMatchObject(refusal('change'));
      await expect(call('serviceAccounts.disable', admin, { id: root.id })).rejects.toMatchObject(refusal('disable'));
      await expect(call('serviceAccounts.delete', admin, { id: root.id })).rejects.toMatchObject(refusal('delete'));
      await expect(call('serviceAccounts.list', owner, {})).resolves.toMatchObject({
        items: expect.arrayContaining([expect.objectContaining({ id: root.id, displayName: 'Robot', status: 'active' })]),
      });

      await expect(call('serviceAccounts.disable', owner, { id: root.id })).resolves.toMatchObject({ status: 'disabled' });
      await expect(call('serviceAccounts.enable', admin, { id: root.id })).rejects.toMatchObject(refusal('enable'));
      await expect(call('serviceAccounts.enable', owner, { id: root.id })).resolves.toMatchObject({ status: 'active' });
      await expect(call('serviceAccounts.delete', owner, { id: root.id })).resolves.toMatchObject({ deleted: true });
    });

    it('an admin may revoke the limited keys of an owner-level account they could have made, not its full key', async () => {
      const root = await createAccount(owner, ['owner']);
      const fullKey = await createKey(owner, root.id);
      const limitedKey = await createKey(admin, root.id, { fullAccess: false, permissions: ['records.read'] });
      await expect(call('serviceAccounts.keys.revoke', admin, { serviceAccountId: root.id, id: fullKey.id })).rejects.toMatchObject({
        code: 'forbidden',
        message: 'You cannot revoke a key carrying permissions you do not hold: organization.manage',
      });
      await expect(resolve(fullKey.token)).resolves.toMatchObject({ userId: root.id });
      await expect(
        call<ApiKeyView>('serviceAccounts.keys.revoke', admin, { serviceAccountId: root.id, id: limitedKey.id }),
      ).resolves.toMatchObject({ status: 'revoked' });
      await expect(
        call<ApiKeyView>('serviceAccounts.keys.revoke', owner, { serviceAccountId: root.id, id: fullKey.id }),
      ).resolves.toMatchObject({ status: 'revoked' });
    });

    it('refuses an expiresAt that passes the date-time format but names no instant with 400', async () => {
      const account = await createAccount(admin, ['read-only']);
      await expect(createKey(admin, account.id, { fullAccess: true, expiresAt: '2030-06-30T23:59:60Z' })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'expiresAt', code: 'invalid_format', message: 'must be a valid date-time' }],
      });
      expect(await liveKeysOf(account.id)).toEqual([]);
    });
  });

  describe('serviceAccounts.delete', () => {
    it('removes its membership and role grants with it, revokes its keys and emits organization.member-removed and user.deleted', async () => {
      const account = await createAccount(admin, ['member', 'read-only']);
      const key = await createKey(admin, account.id);
      const [{ id: membershipId }] = await sql<{ id: string }>('SELECT id FROM memberships WHERE user_id = ?', [account.id]);
      const dispatcher = new RecordingDispatcher();
      await expect(call('serviceAccounts.delete', admin, { id: account.id }, dispatcher)).resolves.toEqual({
        id: account.id,
        deleted: true,
        revokedKeys: 1,
      });
      expect(await sql('SELECT id FROM memberships WHERE user_id = ?', [account.id])).toEqual([]);
      expect(await sql('SELECT id FROM role_grants WHERE membership_id = ?', [membershipId])).toEqual([]);
      expect(await liveKeysOf(account.id)).toEqual([]);
      await expect(resolve(key.token)).rejects.toMatchObject({ code: 'unauthorized' });
      expect(dispatcher.published).toEqual([
        expect.objectContaining({
          type: 'organization.member-removed',
          organizationId: org.id,
          userId: account.id,
          payload: { organizationId: org.id, userId: account.id, removedBy: admin.userId },
        }),
        expect.objectContaining({
          type: 'user.deleted',
          organizationId: org.id,
          userId: account.id,
          payload: { userId: account.id, deletedBy: admin.userId },
        }),
      ]);
    });

    it('a key asked for while the account is being deleted is refused, and none outlives the deletion', async () => {
      const account = await createAccount(admin, ['read-only']);
      const existing = await createKey(admin, account.id);
      // Holds the deletion at its revoke, after it deleted the membership.
      const blocker = await holdTransaction(db.database.directUrl);
      let deletion: Promise<{ value?: unknown; error?: unknown }> | undefined;
      let creation: Promise<{ value?: CreatedApiKey; error?: unknown }> | undefined;
      try {
        await blocker.query('SELECT id FROM api_keys WHERE id = $1 FOR UPDATE', [existing.id]);
        deletion = settle(call('serviceAccounts.delete', admin, { id: account.id }));
        await waitForLockWaiters(db.orm, 1);
        creation = settle(createKey(admin, account.id));
        await waitForLockWaiters(db.orm, 2);
      } finally {
        await blocker.rollback();
      }
      expect((await deletion)?.error).toBeUndefined();
      expect((await creation)?.error).toMatchObject({ code: 'not_found', message: 'Service account not found' });
      expect(await liveKeysOf(account.id)).toEqual([]);
    });
  });

  describe("another organization's service accounts", () => {
    it('keys.list and keys.revoke answer 404 and touch nothing', async () => {
      const account = await createAccount(admin, ['read-only']);
      const key = await createKey(admin, account.id);
      const otherOrg = await seedOrganization(db.orm);
      const otherOwner = await sessionPrincipal(db.orm, await seedMember(db.orm, otherOrg, ['owner']), otherOrg.id);
      await expect(call('serviceAccounts.keys.list', otherOwner, { serviceAccountId: account.id })).rejects.toMatchObject({
        code: 'not_found',
        message: 'Service account not found',
      });
      await expect(
        call('serviceAccounts.keys.revoke', otherOwner, { serviceAccountId: account.id, id: key.id }),
      ).rejects.toMatchObject({ code: 'not_found', message: 'Service account not found' });
      // Through an account of their own, the key is not theirs either.
      const theirs = await createAccount(otherOwner);
      await expect(
        call('serviceAccounts.keys.revoke', otherOwner, { serviceAccountId: theirs.id, id: key.id }),
      ).rejects.toMatchObject({ code: 'not_found', message: 'API key not found' });
      expect(await liveKeysOf(account.id)).toEqual([{ id: key.id }]);
    });
  });
});
