import { ADMIN_EMAIL, PLATFORM_ADMIN, errorOf, jsonOf, sessionToken, startTestApi, type TestApi } from '../support/test-api';

interface DevSession {
  token: string;
  userId: string;
  expiresAt: string;
}

const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  CURSOR_SECRET: 'cursor-secret-for-the-production-test-0123456789',
};

/** The console's development sign-in: a door for development only. */
describe('/dev/session outside production', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  const mint = (email: unknown) => api.request('/dev/session', { method: 'POST', json: { email } });

  it('names the demo user: the first platform admin', async () => {
    const response = await api.request('/dev/session');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ demoEmail: ADMIN_EMAIL });
  });

  it('mints a session for any email that /rpc accepts, the same person each time', async () => {
    const first = await jsonOf<DevSession>(await mint('New.Person@Example.com'));
    const again = await jsonOf<DevSession>(await mint('new.person@example.com'));
    expect(again.userId).toBe(first.userId);
    expect(Date.parse(first.expiresAt)).toBeGreaterThan(Date.now());

    const me = await api.rpc<{ user: { id: string; email: string; isPlatformAdmin: boolean } }>('me.get', {}, { token: first.token });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: first.userId, email: 'new.person@example.com', isPlatformAdmin: false });
  });

  it('signs a person already known by their address in as themselves', async () => {
    // The platform admin exists once it has been seen through a session of the identity provider.
    expect((await api.rpc('me.get', {}, { token: await sessionToken({ ...PLATFORM_ADMIN, emailVerified: true }) })).status).toBe(200);

    const session = await jsonOf<DevSession>(await mint(ADMIN_EMAIL));
    expect(session.userId).toBe(PLATFORM_ADMIN.sub);
    const me = await api.rpc<{ user: { id: string; isPlatformAdmin: boolean } }>('me.get', {}, { token: session.token });
    expect(me.body.user).toEqual(expect.objectContaining({ id: PLATFORM_ADMIN.sub, isPlatformAdmin: true }));
  });

  it('refuses what is not an email address', async () => {
    for (const email of ['', 'no-at-sign', 'two words@example.com', 42, `${'a'.repeat(250)}@example.com`]) {
      const response = await mint(email);
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'validation_failed', details: [{ field: 'email', code: 'invalid_format' }] });
    }
  });
});

describe.each([
  ['in production', PRODUCTION_ENV],
  // A deployment that forgot NODE_ENV is production: development features need it stated outright.
  ['with NODE_ENV unset', { ...PRODUCTION_ENV, NODE_ENV: '' }],
])('/dev/session %s', (_, env) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(env);
  });
  afterAll(() => api.close());

  it('does not exist: no route answers it, whatever the method', async () => {
    expect(api.config.nodeEnv).toBe('production');
    for (const method of ['GET', 'POST']) {
      const response = await api.request('/dev/session', method === 'POST' ? { method, json: { email: ADMIN_EMAIL } } : { method });
      expect(response.status).toBe(404);
      expect(await errorOf(response)).toEqual({ code: 'not_found', message: `No route for ${method} /dev/session` });
    }
  });
});
