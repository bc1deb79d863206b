import type { EventEnvelope } from '@mrp/platform';
import { ADMIN_EMAIL, PLATFORM_ADMIN, errorOf, newHuman, sessionToken, startTestApi, type SessionUser, type TestApi } from './support/test-api';

/** DESIGN 3 over real HTTP: the identity provider owns who a person is; /rpc only reads it. */
describe('/rpc sessions and the identity provider', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  const rpcAs = async (user: SessionUser, name: string, input: unknown) => api.rpc<Record<string, unknown>>(name, input, { token: await sessionToken(user) });
  const isAdmin = async (user: SessionUser) => ((await rpcAs(user, 'me.get', {})).body.user as { isPlatformAdmin: boolean }).isPlatformAdmin;

  it('a signed-in user cannot make itself a platform admin by setting an admin address on its profile', async () => {
    const mallory = newHuman('mallory');
    const victim = newHuman('victim');
    expect((await rpcAs(victim, 'me.get', {})).status).toBe(200);

    const attempt = await api.request('/rpc/users.updateProfile', { method: 'POST', json: { email: ADMIN_EMAIL }, token: await sessionToken(mallory) });
    expect(attempt.status).toBe(400);
    expect(await errorOf(attempt)).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'email', code: 'read_only', message: expect.stringContaining('identity provider') }],
    });
    expect(await isAdmin(mallory)).toBe(false);
    expect((await rpcAs(mallory, 'users.disable', { userId: victim.sub })).status).toBe(403);

    // The real admin signs in as ever and keeps every power.
    expect(await isAdmin(PLATFORM_ADMIN)).toBe(true);
    expect((await rpcAs(PLATFORM_ADMIN, 'users.disable', { userId: victim.sub })).status).toBe(200);
    expect((await rpcAs(PLATFORM_ADMIN, 'users.enable', { userId: victim.sub })).status).toBe(200);
  });

  it('refuses a session whose sub is not a UUID (401), creating nobody', async () => {
    const notUuid = { ...newHuman('legacy'), sub: 'auth0|legacy-user-1' };
    const response = await api.request('/rpc/me.get', { method: 'POST', json: {}, token: await sessionToken(notUuid) });
    expect(response.status).toBe(401);
    expect(await errorOf(response)).toEqual({ code: 'unauthorized', message: 'Session token has no valid "sub" claim (a UUID)' });
    const rows = await api.runtime.orm.em.fork().execute('SELECT id FROM users WHERE lower(email) = ?', [notUuid.email.toLowerCase()]);
    expect(rows).toEqual([]);
  });

  it('trusts no address the provider marks unverified: no platform admin, no invite', async () => {
    const pretender = { ...newHuman('pretender'), email: ADMIN_EMAIL, emailVerified: false };
    expect(await isAdmin(pretender)).toBe(false);
    expect((await rpcAs(pretender, 'featureFlags.set', { key: 'public-api.enabled', enabled: true })).status).toBe(403);

    const invitee = newHuman('invitee');
    const owner = newHuman('owner');
    const organization = await rpcAs(owner, 'organizations.create', { name: `Invites ${owner.sub}` });
    const sent = await api.rpc<{ token: string }>('organizations.invite', { email: invitee.email }, {
      token: await sessionToken(owner),
      organizationId: organization.body.id as string,
    });
    const unverifiedAccept = await rpcAs({ ...invitee, emailVerified: false }, 'organizations.acceptInvite', { token: sent.body.token });
    expect(unverifiedAccept.status).toBe(403);
    expect((await rpcAs({ ...invitee, emailVerified: true }, 'organizations.acceptInvite', { token: sent.body.token })).status).toBe(200);
  });

  it('follows an address the provider changed, emitting user.email-changed with the request id', async () => {
    const ada = newHuman('ada');
    expect((await rpcAs(ada, 'me.get', {})).status).toBe(200);
    const seen: EventEnvelope[] = [];
    const unsubscribe = api.runtime.bus.subscribe('user.email-changed', (event) => void seen.push(event));
    try {
      const moved = { ...ada, email: `moved-${ada.email}` };
      const me = await api.request('/rpc/me.get', { method: 'POST', json: {}, token: await sessionToken(moved), headers: { 'X-Request-Id': 'idp-change-1' } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { user: { email: string } }).user.email).toBe(moved.email);
      await api.runtime.bus.idle();
      expect(seen).toEqual([
        expect.objectContaining({
          type: 'user.email-changed',
          userId: ada.sub,
          correlationId: 'idp-change-1',
          payload: { userId: ada.sub, previousEmail: ada.email, email: moved.email },
        }),
      ]);
    } finally {
      unsubscribe();
    }
  });

  it("refuses a claim of another account's address (409) and leaves that account whole", async () => {
    expect(await isAdmin(PLATFORM_ADMIN)).toBe(true);
    const carol = newHuman('carol');
    expect((await rpcAs(carol, 'me.get', {})).status).toBe(200);
    const collision = await rpcAs({ ...carol, email: ADMIN_EMAIL }, 'me.get', {});
    expect(collision.status).toBe(409);
    expect(collision.body.error).toMatchObject({ code: 'conflict', message: `The email address ${ADMIN_EMAIL} already belongs to another account` });
    expect(((await rpcAs(carol, 'me.get', {})).body.user as { email: string }).email).toBe(carol.email);
    expect(await isAdmin(PLATFORM_ADMIN)).toBe(true);
  });
});
