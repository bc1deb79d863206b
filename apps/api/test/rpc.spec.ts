import { errorOf, newHuman, sessionToken, startTestApi, PLATFORM_ADMIN, type SessionUser, type TestApi } from './support/test-api';

/** The internal interface over real HTTP: sessions, organizations, RBAC on live grants, flags. */
describe('/rpc', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  async function signUp(name: string): Promise<{ user: SessionUser; token: string }> {
    const user = newHuman(name);
    return { user, token: await sessionToken(user) };
  }

  async function organizationOf(token: string): Promise<string> {
    const { status, body } = await api.rpc<{ id: string }>('organizations.create', { name: `Org ${Math.random()}` }, { token });
    expect(status).toBe(200);
    return body.id;
  }

  it('provisions a user on first sight and answers me.get', async () => {
    const { user, token } = await signUp('first');
    const { status, body } = await api.rpc<{ user: { id: string; email: string; kind: string } }>('me.get', {}, { token });
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ id: user.sub, email: user.email, kind: 'HUMAN' });
  });

  it('rejects a token signed with another secret (401) and an expired one (401)', async () => {
    const user = newHuman('forger');
    const forged = await sessionToken(user, { secret: 'another-secret-another-secret-another!' });
    const expired = await sessionToken(user, { expiresIn: '-10s' });
    for (const token of [forged, expired]) {
      const { status, body } = await api.rpc<{ error: { code: string } }>('me.get', {}, { token });
      expect(status).toBe(401);
      expect(body.error.code).toBe('unauthorized');
    }
  });

  it('creates an organization whose creator is owner, and keeps outsiders out with 404', async () => {
    const owner = await signUp('owner');
    const organizationId = await organizationOf(owner.token);
    const me = await api.rpc<{ activeOrganization: { permissions: string[] } }>('me.get', {}, { token: owner.token, organizationId });
    expect(me.body.activeOrganization.permissions).toContain('organization.manage');

    const outsider = await signUp('outsider');
    const peek = await api.rpc<{ error: { code: string } }>('organizations.get', {}, { token: outsider.token, organizationId });
    expect(peek.status).toBe(404);
    expect(peek.body.error.code).toBe('not_found');
  });

  it('validates input (400 validation_failed with details) and demands an organization header', async () => {
    const { token } = await signUp('validator');
    const invalid = await api.rpc<{ error: { code: string; details: unknown[] } }>('organizations.create', { name: 5 }, { token });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('validation_failed');
    expect(invalid.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name' })]));

    const noOrganization = await api.rpc<{ error: { code: string } }>('rbac.roles.list', {}, { token });
    expect(noOrganization.status).toBe(400);
    const badHeader = await api.request('/rpc/rbac.roles.list', { method: 'POST', json: {}, token, headers: { 'X-Organization-Id': 'nope' } });
    expect(badHeader.status).toBe(400);
  });

  it('lets a second human join through invite + accept with the chosen role, and enforces it live', async () => {
    const owner = await signUp('inviter');
    const organizationId = await organizationOf(owner.token);
    const guest = await signUp('guest');

    const invite = await api.rpc<{ token: string }>('organizations.invite', { email: guest.user.email, roleKeys: ['read-only'] }, {
      token: owner.token,
      organizationId,
    });
    expect(invite.status).toBe(200);
    const accepted = await api.rpc('organizations.acceptInvite', { token: invite.body.token }, { token: guest.token });
    expect(accepted.status).toBe(200);

    // read-only cannot manage roles: 403 before anything happens
    const denied = await api.rpc<{ error: { code: string; message: string } }>(
      'rbac.roles.create',
      { key: 'auditor', name: 'Auditor', permissions: ['records.read'] },
      { token: guest.token, organizationId },
    );
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toContain('rbac.manage');

    // grant member, then revoke it: the very next call sees each change
    const grant = await api.rpc('rbac.roles.assign', { userId: guest.user.sub, roleKey: 'admin' }, { token: owner.token, organizationId });
    expect(grant.status).toBe(200);
    const asAdmin = await api.rpc('rbac.roles.list', {}, { token: guest.token, organizationId });
    expect(asAdmin.status).toBe(200);
    const allowed = await api.rpc('rbac.roles.create', { key: 'auditor', name: 'Auditor', permissions: ['records.read'] }, {
      token: guest.token,
      organizationId,
    });
    expect(allowed.status).toBe(200);

    // an admin cannot grant what it does not hold
    const escalation = await api.rpc<{ error: { code: string } }>(
      'rbac.roles.create',
      { key: 'superuser', name: 'Superuser', permissions: ['organization.manage'] },
      { token: guest.token, organizationId },
    );
    expect(escalation.status).toBe(403);

    const revoke = await api.rpc('rbac.roles.revoke', { userId: guest.user.sub, roleKey: 'admin' }, { token: owner.token, organizationId });
    expect(revoke.status).toBe(200);
    const again = await api.rpc('rbac.roles.create', { key: 'auditor2', name: 'Auditor 2', permissions: ['records.read'] }, {
      token: guest.token,
      organizationId,
    });
    expect(again.status).toBe(403);
  });

  it('refuses a disabled user on the next call, and only platform admins may disable', async () => {
    const admin = PLATFORM_ADMIN;
    const adminToken = await sessionToken(admin);
    const victim = await signUp('victim');
    expect((await api.rpc('me.get', {}, { token: victim.token })).status).toBe(200);

    const notAdmin = await api.rpc('users.disable', { userId: admin.sub }, { token: victim.token });
    expect(notAdmin.status).toBe(403);

    expect((await api.rpc('users.disable', { userId: victim.user.sub }, { token: adminToken })).status).toBe(200);
    const refused = await api.rpc<{ error: { code: string } }>('me.get', {}, { token: victim.token });
    expect(refused.status).toBe(401);

    expect((await api.rpc('users.enable', { userId: victim.user.sub }, { token: adminToken })).status).toBe(200);
    expect((await api.rpc('me.get', {}, { token: victim.token })).status).toBe(200);
  });

  it('does not fail the request when an event subscriber throws', async () => {
    const seen: string[] = [];
    const unsubscribeBroken = api.runtime.bus.subscribe('organization.*', () => {
      throw new Error('subscriber bug');
    });
    const unsubscribeWorking = api.runtime.bus.subscribe('organization.created', (event) => void seen.push(event.type));
    try {
      const { token } = await signUp('emitter');
      const response = await api.request('/rpc/organizations.create', {
        method: 'POST',
        json: { name: 'Resilient' },
        token,
        headers: { 'X-Request-Id': 'corr-42' },
      });
      expect(response.status).toBe(200);
      await api.runtime.bus.idle();
      expect(seen).toEqual(['organization.created']);
    } finally {
      unsubscribeBroken();
      unsubscribeWorking();
    }
  });

  it('stamps events with the request id as correlationId', async () => {
    const correlationIds: Array<string | undefined> = [];
    const unsubscribe = api.runtime.bus.subscribe('organization.created', (event) => void correlationIds.push(event.correlationId));
    try {
      const { token } = await signUp('correlated');
      await api.request('/rpc/organizations.create', { method: 'POST', json: { name: 'Traced' }, token, headers: { 'X-Request-Id': 'trace-abc' } });
      await api.runtime.bus.idle();
      expect(correlationIds).toEqual(['trace-abc']);
    } finally {
      unsubscribe();
    }
  });

  it('lets platform admins flip feature flags, visible at once to the public API', async () => {
    const adminToken = await sessionToken(PLATFORM_ADMIN);
    const before = await api.request('/api/v1/openapi.json');
    expect(before.status).toBe(404);
    expect((await errorOf(before)).code).toBe('public_api_disabled');

    const flipped = await api.rpc<{ enabled: boolean; previous: boolean }>('featureFlags.set', { key: 'public-api.enabled', enabled: true }, {
      token: adminToken,
    });
    expect(flipped.status).toBe(200);
    expect(flipped.body).toMatchObject({ enabled: true, previous: false });
    expect((await api.request('/api/v1/openapi.json')).status).toBe(200);

    const { token } = await signUp('nonadmin');
    expect((await api.rpc('featureFlags.set', { key: 'public-api.enabled', enabled: false }, { token })).status).toBe(403);
    await api.rpc('featureFlags.set', { key: 'public-api.enabled', enabled: false }, { token: adminToken });
    expect((await api.request('/api/v1/openapi.json')).status).toBe(404);
  });

  describe('a procedure behind a flag that is off', () => {
    const unknownAnswer = async (name: string, init: { json?: unknown; token?: string; organizationId?: string; body?: string }) => {
      const response = await api.request(`/rpc/${name}`, { method: 'POST', ...init });
      return { status: response.status, error: await errorOf(response) };
    };

    it('answers exactly as an unknown procedure does, before the session, the organization or the input are looked at', async () => {
      const owner = await signUp('hidden-surface');
      const organizationId = await organizationOf(owner.token);
      const attempts: Array<{ json?: unknown; token?: string; organizationId?: string; body?: string }> = [
        {}, // no session at all
        { token: 'not-a-jwt' },
        { token: owner.token, json: {} }, // no organization header
        { token: owner.token, organizationId, json: { id: 'x', unexpected: true } }, // invalid input
        { token: owner.token, organizationId, json: { id: 'svc_0123456789abcdef0123456789abcdef' } },
      ];
      for (const attempt of attempts) {
        expect(await unknownAnswer('serviceAccounts.disable', attempt)).toEqual({
          status: 404,
          error: { code: 'not_found', message: 'Procedure serviceAccounts.disable not found' },
        });
        expect(await unknownAnswer('serviceAccounts.nothingLikeThis', attempt)).toEqual({
          status: 404,
          error: { code: 'not_found', message: 'Procedure serviceAccounts.nothingLikeThis not found' },
        });
      }
    });

    it('is served, with its usual checks, once the flag is on', async () => {
      const adminToken = await sessionToken(PLATFORM_ADMIN);
      const flag = { key: 'public-api.service-accounts' };
      expect((await api.rpc('featureFlags.set', { ...flag, enabled: true }, { token: adminToken })).status).toBe(200);
      try {
        expect((await unknownAnswer('serviceAccounts.list', {})).status).toBe(401);
        const owner = await signUp('visible-surface');
        const organizationId = await organizationOf(owner.token);
        const listed = await api.rpc<{ items: unknown[] }>('serviceAccounts.list', {}, { token: owner.token, organizationId });
        expect(listed).toMatchObject({ status: 200, body: { items: [] } });
      } finally {
        await api.rpc('featureFlags.set', { ...flag, enabled: false }, { token: adminToken });
      }
    });
  });
});
