import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import { batchRefusal, MAX_BATCH_ERROR_DETAILS } from './record-data';
import type { RecordBatchOutput, RecordOutput } from './schemas';

describe('batchRefusal', () => {
  it('names the first problems and counts them all, and the records they are in', () => {
    const details = Array.from({ length: 130 }, (_, index) => ({ field: `records[${index % 65}].data.amount`, code: 'invalid', message: 'x' }));
    const error = batchRefusal(details);
    expect(error.code).toBe('validation_failed');
    expect(error.details).toHaveLength(MAX_BATCH_ERROR_DETAILS);
    expect(error.message).toBe('130 problems in 65 records; the first 100 are listed; nothing was written');
    expect(batchRefusal(details.slice(0, 1)).message).toBe('1 problem in 1 record; nothing was written');
  });
});

describe('Batch record procedures', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
    const owner = env.principal(org);
    await env.call('dataModels.create', { key: 'companies', name: 'Companies' }, owner);
    await env.call('dataModels.create', { key: 'deals', name: 'Deals' }, owner);
    const field = (input: Record<string, unknown>) => env.call('dataModels.fields.create', { model: 'deals', ...input }, owner);
    await field({ key: 'amount', name: 'Amount', type: 'NUMBER', config: { min: 0 } });
    await field({ key: 'quantity', name: 'Quantity', type: 'NUMBER' });
    await field({ key: 'company', name: 'Company', type: 'RELATION', config: { targetModel: 'companies' } });
    await field({ key: 'total', name: 'Total', type: 'FORMULA', config: { expression: '{amount} * {quantity}', resultType: 'NUMBER' } });
  });
  afterAll(() => env.close());

  const owner = () => env.principal(org);
  const countDeals = async () => (await env.sql<{ n: number }>("SELECT count(*)::int AS n FROM records r JOIN data_models m ON m.id = r.model_id WHERE m.key = 'deals'"))[0].n;
  const createMany = (records: Array<{ data: Record<string, unknown> }>) => env.call<RecordBatchOutput>('records.createMany', { model: 'deals', records }, owner());

  it('creates in order, with formulas computed per record, and checks relations for the whole batch', async () => {
    const acme = await env.call<RecordOutput>('records.create', { model: 'companies', data: { title: 'Acme' } }, owner());
    const { items } = await createMany([
      { data: { title: 'A', amount: 2, quantity: 3, company: acme.id } },
      { data: { title: 'B', amount: 5, quantity: 5 } },
    ]);
    expect(items.map((item) => [item.title, item.data['total'], item.data['company']])).toEqual([
      ['A', 6, acme.id],
      ['B', 25, undefined],
    ]);
  });

  it('refuses a batch with a missing relation target, naming the record, and writes none of it', async () => {
    const before = await countDeals();
    await expect(
      createMany([{ data: { title: 'Fine' } }, { data: { title: 'Dangling', company: '0190a000-0000-7000-8000-000000000000' } }]),
    ).rejects.toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'records[1].data.company', code: 'not_found' })] });
    expect(await countDeals()).toBe(before);
  });

  it('updates with per-record formulas, and refuses records of another model as not found', async () => {
    const { items } = await createMany([{ data: { title: 'U', amount: 1, quantity: 1 } }]);
    const company = await env.call<RecordOutput>('records.create', { model: 'companies', data: { title: 'Other' } }, owner());
    const updated = await env.call<RecordBatchOutput>('records.updateMany', { model: 'deals', records: [{ id: items[0].id, data: { quantity: 4 } }] }, owner());
    expect(updated.items[0].data['total']).toBe(4);
    await expect(
      env.call('records.updateMany', { model: 'deals', records: [{ id: company.id, data: { title: 'x' } }] }, owner()),
    ).rejects.toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'records[0].id', code: 'not_found' })] });
  });

  it('needs the permission of the single write', async () => {
    const reader = env.principal(org, { permissions: ['records.read'] });
    await expect(env.call('records.createMany', { model: 'deals', records: [{ data: { title: 'x' } }] }, reader)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(env.call('records.deleteMany', { ids: ['0190a000-0000-7000-8000-000000000000'] }, reader)).rejects.toMatchObject({ code: 'forbidden' });
  });
});
