import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { ModelCatalog } from './catalog-procedure';

describe('dataModels.catalog', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
  });
  afterAll(() => env.close());

  const owner = () => env.principal(org);
  const catalog = () => env.call<ModelCatalog>('dataModels.catalog', {}, owner());

  it('describes every live model by key with its live fields in position order', async () => {
    await env.call('dataModels.create', { key: 'orders', name: 'Orders', description: 'Sales orders' }, owner());
    await env.call('dataModels.create', { key: 'archived_one', name: 'Gone' }, owner());
    await env.call('dataModels.archive', { key: 'archived_one' }, owner());
    await env.call('dataModels.create', { key: 'customers', name: 'Customers' }, owner());
    await env.call('dataModels.fields.create', { model: 'orders', key: 'amount', name: 'Amount', type: 'NUMBER', config: { min: 0 } }, owner());
    await env.call('dataModels.fields.create', { model: 'orders', key: 'old', name: 'Old', type: 'TEXT' }, owner());
    await env.call('dataModels.fields.archive', { model: 'orders', key: 'old' }, owner());

    const { models, version } = await catalog();
    expect(typeof version).toBe('string');
    expect(models.map((model) => model.key)).toEqual(['customers', 'orders']);
    expect(models[1]).toEqual({
      key: 'orders',
      name: 'Orders',
      description: 'Sales orders',
      fields: [
        { key: 'title', name: 'Title', type: 'TEXT', config: { maxLength: 1000 }, required: true, position: 0 },
        { key: 'amount', name: 'Amount', type: 'NUMBER', config: { min: 0 }, required: false, position: expect.any(Number) },
      ],
    });
  });

  it('changes its version when a field, a model or the set of models changes, and only then', async () => {
    const before = (await catalog()).version;
    expect((await catalog()).version).toBe(before);

    await env.call('dataModels.fields.update', { model: 'orders', key: 'amount', config: { min: 1 } }, owner());
    const afterField = (await catalog()).version;
    expect(afterField).not.toBe(before);

    await env.call('dataModels.update', { key: 'orders', name: 'Sales orders' }, owner());
    const afterRename = (await catalog()).version;
    expect(afterRename).not.toBe(afterField);

    await env.call('dataModels.archive', { key: 'customers' }, owner());
    expect((await catalog()).version).not.toBe(afterRename);
  });

  it('needs data-models.read, and shows only the organization of the caller', async () => {
    const other = await env.createOrganization();
    await expect(env.call<ModelCatalog>('dataModels.catalog', {}, env.principal(other))).resolves.toMatchObject({ models: [] });
    await expect(env.call('dataModels.catalog', {}, env.principal(org, { permissions: [] }))).rejects.toMatchObject({ code: 'forbidden' });
  });
});
