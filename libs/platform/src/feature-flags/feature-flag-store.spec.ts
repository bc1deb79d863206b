import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '../platform-module';
import { FeatureFlagStore } from './feature-flag-store';

describe('FeatureFlagStore', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  it('falls back to boot defaults, then built-in defaults', async () => {
    const store = new FeatureFlagStore(db.orm, { 'public-api.enabled': true });
    expect(await store.isEnabled('public-api.enabled')).toBe(true);
    expect(await store.isEnabled('public-api.service-accounts')).toBe(false);
    const list = await store.list();
    expect(list.map((flag) => [flag.key, flag.source])).toEqual([
      ['public-api.enabled', 'boot-default'],
      ['public-api.service-accounts', 'built-in'],
    ]);
  });

  it('sees a flip made by another process once its snapshot is older than maxAge', async () => {
    let now = 1_000;
    const reader = new FeatureFlagStore(db.orm, {}, 500, () => now);
    const writer = new FeatureFlagStore(db.orm, {});
    expect(await reader.isEnabled('public-api.service-accounts')).toBe(false);
    await db.orm.em.fork().transactional((em) => writer.set(em, 'public-api.service-accounts', true, 'admin'));
    expect(await writer.isEnabled('public-api.service-accounts')).toBe(true);
    now += 499;
    expect(await reader.isEnabled('public-api.service-accounts')).toBe(false);
    now += 1;
    expect(await reader.isEnabled('public-api.service-accounts')).toBe(true);
  });
});
