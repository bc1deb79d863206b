import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { PLATFORM_ADMIN, sessionToken, startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, rpcOk, type Member, type OrganizationWithKey } from '../support/public-api-fixtures';
import { startApiProcess, stopApiProcess, type ApiProcess } from '../support/api-processes';

/**
 * Issue 15's guard: whatever a process keeps between requests, a change made through another
 * process is refused on the very next request. Each case warms both serving processes first
 * (so each holds the member's access), changes access through a third, then asks both again.
 */
// Keys are made by their owners, who need api-keys.manage for that.
const WRITER = ['api-keys.manage', 'data-models.read', 'records.read', 'records.create'];

describe('/api/v1 access changes across api OS processes', () => {
  let database: TestDatabase;
  let setup: TestApi;
  let org: OrganizationWithKey;
  const processes: ApiProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    setup = await startTestApi({}, { database });
    org = await createOrganizationWithKey(setup);
    await org.rpc('rbac.roles.create', { key: 'writer', name: 'Writer', permissions: WRITER });
    await Promise.all([startApiProcess(database, processes), startApiProcess(database, processes)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(processes.map(stopApiProcess));
    await setup?.close();
    await database?.drop();
  }, 60_000);

  const statusesOf = (token: string) =>
    Promise.all(
      processes.map(async ({ url }) => {
        const response = await fetch(`${url}/api/v1/models/${org.modelKey}/records?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
        return response.status;
      }),
    );

  async function writerWithKey(): Promise<{ member: Member; token: string; keyId: string }> {
    const member = await org.addMember(['writer'], 'writer');
    const key = await org.createKey({}, member.session);
    expect(await statusesOf(key.token)).toEqual([200, 200]);
    expect(await statusesOf(key.token)).toEqual([200, 200]);
    return { member, token: key.token, keyId: key.id };
  }

  it("refuses a permission the member's role just lost", async () => {
    const { token } = await writerWithKey();
    await org.rpc('rbac.roles.update', { key: 'writer', permissions: WRITER.filter((permission) => permission !== 'records.read') });
    expect(await statusesOf(token)).toEqual([403, 403]);
    await org.rpc('rbac.roles.update', { key: 'writer', permissions: WRITER });
    expect(await statusesOf(token)).toEqual([200, 200]);
  });

  it('refuses once the grant that gave the permission is revoked', async () => {
    const { member, token } = await writerWithKey();
    await org.rpc('rbac.roles.revoke', { userId: member.user.sub, roleKey: 'writer' });
    expect(await statusesOf(token)).toEqual([403, 403]);
  });

  it('refuses a revoked key', async () => {
    const { member, token, keyId } = await writerWithKey();
    await org.rpc('apiKeys.revoke', { id: keyId }, member.session);
    expect(await statusesOf(token)).toEqual([401, 401]);
  });

  it('refuses the key of a member removed from the organization', async () => {
    const { member, token } = await writerWithKey();
    await org.rpc('organizations.removeMember', { userId: member.user.sub });
    expect(await statusesOf(token)).toEqual([401, 401]);
  });

  it('refuses the key of an owner who was disabled', async () => {
    const { member, token } = await writerWithKey();
    await rpcOk(setup, 'users.disable', { userId: member.user.sub }, { token: await sessionToken(PLATFORM_ADMIN) });
    expect(await statusesOf(token)).toEqual([401, 401]);
  });
});
