import { PLATFORM_ADMIN, sessionToken, startTestApi, type TestApi } from './support/test-api';
import { createOrganizationWithKey, queryDatabase, rpcOk, type OrganizationWithKey } from './support/public-api-fixtures';

const MAX_ACTIVE_KEYS = 100;

/** One owner's keys in one organization are capped: a stolen session cannot mint keys without end. */
describe(`at most ${MAX_ACTIVE_KEYS} active API keys per owner in an organization`, () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  beforeAll(async () => {
    api = await startTestApi();
    org = await createOrganizationWithKey(api);
    await rpcOk(api, 'featureFlags.set', { key: 'public-api.service-accounts', enabled: true }, { token: await sessionToken(PLATFORM_ADMIN) });
  });
  afterAll(() => api.close());

  const liveKeysOf = async (ownerId: string) =>
    (
      await queryDatabase<{ live: number }>(
        api,
        'SELECT count(*)::int AS live FROM api_keys WHERE owner_user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())',
        [ownerId],
      )
    )[0].live;

  /** Live keys up to `active` for the owner, and revoked and expired ones that do not count. */
  const seedKeys = async (ownerId: string, active: number) =>
    queryDatabase(
      api,
      `INSERT INTO api_keys (id, organization_id, owner_user_id, name, token_hash, prefix, full_access, permissions, expires_at, revoked_at, created_by, created_at)
       SELECT gen_random_uuid(), $1, $2, 'seeded ' || n, encode(sha256(convert_to(random()::text || n, 'UTF8')), 'hex'), 'mrk_seeded00', true, '{}',
              CASE WHEN n > $3 + 5 THEN now() - interval '1 day' END, CASE WHEN n > $3 AND n <= $3 + 5 THEN now() END, $2, now()
         FROM generate_series(1, $3::int + 10) AS n`,
      [org.organizationId, ownerId, active - (await liveKeysOf(ownerId))],
    );

  const create = (name: string, input: Record<string, unknown>) =>
    api.rpc<{ error: { code: string; message: string } }>(name, { name: 'k', fullAccess: true, ...input }, { token: org.owner.session, organizationId: org.organizationId });

  it.each([
    ['personal keys (apiKeys.create)', 'apiKeys.create', async () => ({ ownerId: org.owner.user.sub, input: {} })],
    [
      "a service account's keys (serviceAccounts.keys.create)",
      'serviceAccounts.keys.create',
      async () => {
        const account = await org.rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Importer', roleKeys: ['member'] });
        return { ownerId: account.id, input: { serviceAccountId: account.id } };
      },
    ],
  ])('%s: the 101st active one is a 409 conflict in the error shape', async (_, procedure, owner) => {
    const { ownerId, input } = await owner();
    await seedKeys(ownerId, MAX_ACTIVE_KEYS - 1);
    expect((await create(procedure, input)).status).toBe(200);
    const refused = await create(procedure, input);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'conflict',
      message: `At most ${MAX_ACTIVE_KEYS} active API keys per owner in an organization; revoke one first`,
    });
    expect(await liveKeysOf(ownerId)).toBe(MAX_ACTIVE_KEYS);
  });
});
