import { generateApiKeyToken, type CreatedApiKey } from '@mrp/authz';
import { PLATFORM_ADMIN, sessionToken, startTestApi, type TestApi } from '../support/test-api';
import {
  createOrganizationWithKey,
  expectError,
  publicApi,
  queryDatabase,
  rpcOk,
  sleep,
  type OrganizationWithKey,
} from '../support/public-api-fixtures';

/** CONTRACT "Authentication": who may call /api/v1, and with which authority. */
describe('/api/v1 authentication and authority', () => {
  let api: TestApi;
  let adminSession: string;
  beforeAll(async () => {
    // A generous bucket: these tests are about keys, not about the rate limit.
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    adminSession = await sessionToken(PLATFORM_ADMIN);
  });
  afterAll(() => api.close());

  async function expectRejected(response: Response): Promise<void> {
    await expectError(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    // Rejected before the rate limit: no bucket was touched, so no bucket headers.
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  }

  describe('a request is rejected with 401 unauthorized and WWW-Authenticate: Bearer when', () => {
    let org: OrganizationWithKey;
    beforeAll(async () => {
      org = await createOrganizationWithKey(api);
    });

    it('the key works to begin with (the baseline for every row below)', async () => {
      expect((await publicApi(api, org.key.token).get('/me')).status).toBe(200);
    });

    it('the Authorization header is missing', async () => {
      await expectRejected(await publicApi(api, undefined).get('/me'));
    });

    it('the Authorization header is not "Bearer <key>"', async () => {
      await expectRejected(await api.request('/api/v1/me', { headers: { Authorization: `Basic ${org.key.token}` } }));
      await expectRejected(await api.request('/api/v1/me', { headers: { Authorization: 'Bearer' } }));
    });

    it('the key is malformed (wrong prefix, length or alphabet)', async () => {
      const { token } = org.key;
      for (const malformed of ['mrk_short', `sk_${token.slice(4)}`, `${token}x`, `${token.slice(0, -1)}!`, token.slice(4)]) {
        await expectRejected(await publicApi(api, malformed).get('/me'));
      }
    });

    it('the checksum does not match (a typo in the key)', async () => {
      const { token } = org.key;
      const typo = token.slice(0, 10) + (token[10] === 'a' ? 'b' : 'a') + token.slice(11);
      await expectRejected(await publicApi(api, typo).get('/me'));
    });

    it('the key is well-formed but unknown', async () => {
      await expectRejected(await publicApi(api, generateApiKeyToken().token).get('/me'));
    });

    it('the key was revoked (from the next request on)', async () => {
      const key = await org.createKey({ name: 'to revoke' });
      expect((await publicApi(api, key.token).get('/me')).status).toBe(200);
      await org.rpc('apiKeys.revoke', { id: key.id });
      await expectRejected(await publicApi(api, key.token).get('/me'));
    });

    it('the key has expired', async () => {
      const key = await org.createKey({ name: 'short-lived', expiresAt: new Date(Date.now() + 1500).toISOString() });
      expect((await publicApi(api, key.token).get('/me')).status).toBe(200);
      await sleep(1700);
      await expectRejected(await publicApi(api, key.token).get('/me'));
    });

    it("the key's owner was disabled by a platform admin (and works again once enabled)", async () => {
      const victim = await createOrganizationWithKey(api);
      await rpcOk(api, 'users.disable', { userId: victim.owner.user.sub }, { token: adminSession });
      await expectRejected(await publicApi(api, victim.key.token).get('/me'));
      await expectRejected(await publicApi(api, victim.key.token).get(`/models/${victim.modelKey}/records`));

      await rpcOk(api, 'users.enable', { userId: victim.owner.user.sub }, { token: adminSession });
      expect((await publicApi(api, victim.key.token).get('/me')).status).toBe(200);
    });

    it("the key's owner deleted their account", async () => {
      const leaving = await createOrganizationWithKey(api);
      await leaving.rpc('users.requestDeletion', {});
      // The grace period is still running: the key keeps working until the account is deleted.
      expect((await publicApi(api, leaving.key.token).get('/me')).status).toBe(200);

      // Let the grace period end, then run the scheduled task that deletes due accounts.
      await queryDatabase(api, `UPDATE users SET deletion_scheduled_for = now() - interval '1 second' WHERE id = $1`, [
        leaving.owner.user.sub,
      ]);
      const sweep = await api.request('/cron/process-account-deletions', { method: 'POST', token: api.config.cronSecret });
      expect(sweep.status).toBe(200);
      expect(await sweep.json()).toMatchObject({ processed: 1 });

      await expectRejected(await publicApi(api, leaving.key.token).get('/me'));
    });

    it("the key's owner was removed from the key's organization", async () => {
      const member = await org.addMember(['member'], 'leaver');
      const key = await org.createKey({ name: 'member key' }, member.session);
      expect((await publicApi(api, key.token).get('/me')).status).toBe(200);

      await org.rpc('organizations.removeMember', { userId: member.user.sub });
      await expectRejected(await publicApi(api, key.token).get('/me'));
      await expectRejected(await publicApi(api, key.token).get(`/models/${org.modelKey}/records`));
    });

    it("the key's owner has no membership row in the key's organization any more, although the key itself is untouched", async () => {
      const orphaned = await createOrganizationWithKey(api);
      const client = publicApi(api, orphaned.key.token);
      expect((await client.get('/me')).status).toBe(200);

      // Straight in SQL, not organizations.removeMember (which also revokes keys): only the membership check can refuse.
      const deleted = await queryDatabase(api, 'DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2 RETURNING id', [
        orphaned.organizationId,
        orphaned.owner.user.sub,
      ]);
      expect(deleted).toHaveLength(1);
      const [key] = await queryDatabase<{ revoked_at: Date | null; expires_at: Date | null }>(
        api,
        'SELECT revoked_at, expires_at FROM api_keys WHERE id = $1',
        [orphaned.key.id],
      );
      expect(key).toEqual({ revoked_at: null, expires_at: null });

      await expectRejected(await client.get('/me'));
      await expectRejected(await client.get(`/models/${orphaned.modelKey}/records`));
      await expectRejected(await client.post(`/models/${orphaned.modelKey}/records`, { data: { title: 'as a stranger' } }));

      // A membership again (with no roles): the key authenticates, with no permissions at all.
      await queryDatabase(api, 'INSERT INTO memberships (id, organization_id, user_id) VALUES (gen_random_uuid(), $1, $2)', [
        orphaned.organizationId,
        orphaned.owner.user.sub,
      ]);
      const me = await client.get('/me');
      expect(me.status).toBe(200);
      expect(((await me.json()) as { permissions: string[] }).permissions).toEqual([]);
      await expectError(await client.get(`/models/${orphaned.modelKey}/records`), 403, 'forbidden');
    });
  });

  describe("authority is the owner's live role permissions, re-evaluated on every request", () => {
    let org: OrganizationWithKey;
    beforeAll(async () => {
      org = await createOrganizationWithKey(api);
    });

    it('a role change takes effect on the very next request, with nothing to reissue', async () => {
      const member = await org.addMember(['member'], 'demoted');
      const key = await org.createKey({ name: 'member key' }, member.session);
      const client = publicApi(api, key.token);
      expect((await client.post(`/models/${org.modelKey}/records`, { data: { title: 'as member' } })).status).toBe(201);

      await org.rpc('rbac.roles.assign', { userId: member.user.sub, roleKey: 'read-only' });
      await org.rpc('rbac.roles.revoke', { userId: member.user.sub, roleKey: 'member' });
      const denied = await client.post(`/models/${org.modelKey}/records`, { data: { title: 'as read-only' } });
      expect((await expectError(denied, 403, 'forbidden')).message).toContain('records.create');
      expect((await client.get(`/models/${org.modelKey}/records`)).status).toBe(200);
      const me = (await (await client.get('/me')).json()) as { permissions: string[] };
      expect(me.permissions).toEqual(['api-keys.manage', 'data-models.read', 'records.read']);

      await org.rpc('rbac.roles.assign', { userId: member.user.sub, roleKey: 'member' });
      expect((await client.post(`/models/${org.modelKey}/records`, { data: { title: 'member again' } })).status).toBe(201);
    });

    it("a read-only owner's full-access key is read-only", async () => {
      const reader = await org.addMember(['read-only'], 'reader');
      const key = await org.createKey({ name: 'reader key', fullAccess: true }, reader.session);
      const client = publicApi(api, key.token);
      const record = (await (await publicApi(api, org.key.token).post(`/models/${org.modelKey}/records`, { data: { title: 'R' } })).json()) as {
        id: string;
      };

      expect((await client.get(`/models/${org.modelKey}/records`)).status).toBe(200);
      expect((await client.get(`/records/${record.id}`)).status).toBe(200);
      expect((await client.get(`/models/${org.modelKey}`)).status).toBe(200);
      await expectError(await client.post(`/models/${org.modelKey}/records`, { data: { title: 'no' } }), 403, 'forbidden');
      await expectError(await client.patch(`/records/${record.id}`, { data: { title: 'no' } }), 403, 'forbidden');
      await expectError(await client.delete(`/records/${record.id}`), 403, 'forbidden');
      expect((await publicApi(api, org.key.token).get(`/records/${record.id}`)).status).toBe(200);
    });
  });

  describe('a limited key acts with its allowlist intersected with the owner’s permissions', () => {
    let org: OrganizationWithKey;
    let recordId: string;
    beforeAll(async () => {
      org = await createOrganizationWithKey(api);
      const created = await publicApi(api, org.key.token).post(`/models/${org.modelKey}/records`, { data: { title: 'Target' } });
      recordId = ((await created.json()) as { id: string }).id;
    });

    it('a key limited to records.read reads, and gets 403 naming the permission on POST, PATCH and DELETE', async () => {
      const key = await org.createKey({ name: 'read only', fullAccess: false, permissions: ['records.read'] });
      const client = publicApi(api, key.token);
      expect((await client.get(`/models/${org.modelKey}/records`)).status).toBe(200);
      expect((await client.get(`/records/${recordId}`)).status).toBe(200);

      const post = await expectError(await client.post(`/models/${org.modelKey}/records`, { data: { title: 'x' } }), 403, 'forbidden');
      expect(post.message).toContain('records.create');
      const patch = await expectError(await client.patch(`/records/${recordId}`, { data: { title: 'x' } }), 403, 'forbidden');
      expect(patch.message).toContain('records.update');
      const remove = await expectError(await client.delete(`/records/${recordId}`), 403, 'forbidden');
      expect(remove.message).toContain('records.delete');
      // Not on the allowlist either, although the owner holds it:
      expect((await expectError(await client.get('/models'), 403, 'forbidden')).message).toContain('data-models.read');

      const record = (await (await client.get(`/records/${recordId}`)).json()) as { title: string };
      expect(record.title).toBe('Target');
    });

    it("an administrator's limited key is limited too", async () => {
      const admin = await org.addMember(['admin'], 'admin');
      const key = await org.createKey({ name: 'admin read key', fullAccess: false, permissions: ['data-models.read', 'records.read'] }, admin.session);
      const client = publicApi(api, key.token);
      const me = (await (await client.get('/me')).json()) as { permissions: string[]; apiKey: { fullAccess: boolean } };
      expect(me.apiKey.fullAccess).toBe(false);
      expect(me.permissions).toEqual(['data-models.read', 'records.read']);
      expect((await client.get('/models')).status).toBe(200);
      await expectError(await client.post(`/models/${org.modelKey}/records`, { data: { title: 'x' } }), 403, 'forbidden');
      await expectError(await client.delete(`/records/${recordId}?hard=true`), 403, 'forbidden');
    });

    it('the allowlist never widens: an entry the owner loses is lost by the key on the next request', async () => {
      const member = await org.addMember(['member'], 'narrowed');
      const key = await org.createKey({ name: 'writer', fullAccess: false, permissions: ['records.create', 'records.read'] }, member.session);
      const client = publicApi(api, key.token);
      expect((await client.post(`/models/${org.modelKey}/records`, { data: { title: 'ok' } })).status).toBe(201);
      await org.rpc('rbac.roles.assign', { userId: member.user.sub, roleKey: 'read-only' });
      await org.rpc('rbac.roles.revoke', { userId: member.user.sub, roleKey: 'member' });
      await expectError(await client.post(`/models/${org.modelKey}/records`, { data: { title: 'no' } }), 403, 'forbidden');
      const me = (await (await client.get('/me')).json()) as { permissions: string[] };
      expect(me.permissions).toEqual(['records.read']);
    });

    it('hard=true without records.purge is 403 and leaves the record in place', async () => {
      const member = await org.addMember(['member'], 'deleter');
      const key = await org.createKey({ name: 'member key' }, member.session);
      const client = publicApi(api, key.token);
      const error = await expectError(await client.delete(`/records/${recordId}?hard=true`), 403, 'forbidden');
      expect(error.message).toContain('records.purge');

      // The owner's key limited to records.delete lacks purge as well.
      const limited = await org.createKey({ name: 'delete only', fullAccess: false, permissions: ['records.delete', 'records.read'] });
      await expectError(await publicApi(api, limited.token).delete(`/records/${recordId}?hard=true`), 403, 'forbidden');

      expect((await publicApi(api, org.key.token).get(`/records/${recordId}`)).status).toBe(200);
    });
  });

  describe('service-account keys act as an organization-owned machine user with its own roles', () => {
    let org: OrganizationWithKey;
    const setServiceAccountsFlag = (enabled: boolean) =>
      rpcOk(api, 'featureFlags.set', { key: 'public-api.service-accounts', enabled }, { token: adminSession });
    beforeAll(async () => {
      org = await createOrganizationWithKey(api);
      await setServiceAccountsFlag(true);
    });
    afterAll(() => setServiceAccountsFlag(false));

    async function serviceAccountWithKeys(roleKeys: string[], keyCount = 1) {
      const account = await org.rpc<{ id: string }>('serviceAccounts.create', { displayName: `Robot ${roleKeys.join('+')}`, roleKeys });
      const keys = [];
      for (let i = 0; i < keyCount; i++) {
        keys.push(await org.rpc<CreatedApiKey>('serviceAccounts.keys.create', { serviceAccountId: account.id, name: `robot key ${i}`, fullAccess: true }));
      }
      return { account, keys };
    }

    it('acts as the service account, with its roles', async () => {
      const { account, keys } = await serviceAccountWithKeys(['member']);
      const client = publicApi(api, keys[0].token);
      const me = (await (await client.get('/me')).json()) as { principal: { id: string; kind: string } };
      expect(me.principal).toMatchObject({ id: account.id, kind: 'SERVICE' });
      expect(me.principal.id).toMatch(/^svc_/);
      const created = await client.post(`/models/${org.modelKey}/records`, { data: { title: 'by a robot' } });
      expect(created.status).toBe(201);
      expect(((await created.json()) as { createdBy: string }).createdBy).toBe(account.id);
    });

    it('a read-only service account gives read-only keys', async () => {
      const { keys } = await serviceAccountWithKeys(['read-only']);
      const client = publicApi(api, keys[0].token);
      expect((await client.get(`/models/${org.modelKey}/records`)).status).toBe(200);
      await expectError(await client.post(`/models/${org.modelKey}/records`, { data: { title: 'no' } }), 403, 'forbidden');
    });

    it('disabling the service account kills all its keys at once', async () => {
      const { account, keys } = await serviceAccountWithKeys(['member'], 2);
      for (const key of keys) expect((await publicApi(api, key.token).get('/me')).status).toBe(200);
      await org.rpc('serviceAccounts.disable', { id: account.id });
      for (const key of keys) await expectRejected(await publicApi(api, key.token).get('/me'));
      await org.rpc('serviceAccounts.enable', { id: account.id });
      for (const key of keys) expect((await publicApi(api, key.token).get('/me')).status).toBe(200);
    });

    it('service-account keys are inert while public-api.service-accounts is off', async () => {
      const { keys } = await serviceAccountWithKeys(['member']);
      expect((await publicApi(api, keys[0].token).get('/me')).status).toBe(200);
      await setServiceAccountsFlag(false);
      try {
        await expectRejected(await publicApi(api, keys[0].token).get('/me'));
        // A human's key does not depend on that flag.
        expect((await publicApi(api, org.key.token).get('/me')).status).toBe(200);
      } finally {
        await setServiceAccountsFlag(true);
      }
      expect((await publicApi(api, keys[0].token).get('/me')).status).toBe(200);
    });
  });

  describe('the OpenAPI route needs no key', () => {
    it('answers 200 without Authorization; a key that is sent must be valid (decision 95)', async () => {
      await createOrganizationWithKey(api);
      const anonymous = await api.request('/api/v1/openapi.json');
      expect(anonymous.status).toBe(200);
      expect(((await anonymous.json()) as { openapi: string }).openapi).toMatch(/^3\./);
      expect((await publicApi(api, 'mrk_garbage').get('/openapi.json')).status).toBe(401);
    });
  });
});
