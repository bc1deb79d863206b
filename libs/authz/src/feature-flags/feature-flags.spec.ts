import { ADMIN_EMAIL, createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';

describe('featureFlags.list / set', () => {
  let h: AuthzHarness;
  const admin = { sub: 'c2c2c2c2-0000-4000-8000-0000000000f1', email: ADMIN_EMAIL };
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.events.clear());

  it('lists every known flag with its source', async () => {
    const { items } = await h.call<{ items: Array<{ key: string; enabled: boolean; source: string }> }>('featureFlags.list', {}, admin);
    expect(items.map((flag) => [flag.key, flag.enabled, flag.source])).toEqual([
      ['public-api.enabled', false, 'built-in'],
      ['public-api.service-accounts', false, 'built-in'],
    ]);
  });

  it('flips a flag, emits feature-flag.flipped with the previous and new value, and is seen at once', async () => {
    await expect(h.call('featureFlags.set', { key: 'public-api.enabled', enabled: true }, admin)).resolves.toEqual({
      key: 'public-api.enabled',
      enabled: true,
      previous: false,
      description: 'Serve the public REST API at /api/v1',
    });
    expect(await h.flags.isEnabled('public-api.enabled')).toBe(true);
    expect(h.events.published).toEqual([
      expect.objectContaining({
        type: 'feature-flag.flipped',
        payload: { key: 'public-api.enabled', enabled: true, previous: false, flippedBy: admin.sub },
      }),
    ]);

    h.events.clear();
    await h.call('featureFlags.set', { key: 'public-api.enabled', enabled: true }, admin);
    expect(h.events.published).toEqual([]);
    const { items } = await h.call<{ items: Array<{ key: string; source: string }> }>('featureFlags.list', {}, admin);
    expect(items[0]).toMatchObject({ key: 'public-api.enabled', source: 'stored' });
  });

  it('refuses unknown flags and malformed input (400)', async () => {
    await expect(h.call('featureFlags.set', { key: 'public-api.everything', enabled: true }, admin)).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'key', code: 'invalid_option' })],
    });
    await expect(h.call('featureFlags.set', { key: 'public-api.enabled', enabled: 'yes' }, admin)).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'enabled', code: 'invalid_type' })],
    });
  });

  it('tells anyone signed in which flags are on, and nothing more', async () => {
    const someone = h.person('someone');
    await h.call('featureFlags.set', { key: 'public-api.service-accounts', enabled: false }, admin);
    await h.call('featureFlags.set', { key: 'public-api.enabled', enabled: true }, admin);
    await expect(h.call('featureFlags.enabled', {}, someone)).resolves.toEqual({ items: ['public-api.enabled'] });
    await h.call('featureFlags.set', { key: 'public-api.service-accounts', enabled: true }, admin);
    await expect(h.call('featureFlags.enabled', {}, someone)).resolves.toEqual({ items: ['public-api.enabled', 'public-api.service-accounts'] });
    await h.call('featureFlags.set', { key: 'public-api.service-accounts', enabled: false }, admin);
  });

  it('is for platform admins only (403)', async () => {
    const someone = h.person('someone');
    await expect(h.call('featureFlags.list', {}, someone)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(h.call('featureFlags.set', { key: 'public-api.enabled', enabled: false }, someone)).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(await h.flags.isEnabled('public-api.enabled')).toBe(true);
  });
});
