import type { EntityManager } from '@mikro-orm/postgresql';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { FieldOutput } from '../models/schemas';
import { definitionMap, loadLiveModel } from '../models/model-store';
import { buildListQuery } from '../records/list-query';
import { parseSort } from '../query/sort';
import { systemPrincipal } from '@mrp/platform';
import { indexName } from './field-index';
import { RETRY_FIELD_INDEXES } from './retry-indexes-procedure';
import type { FilterNode } from '@mrp/field-validation';

describe('Indexed fields', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  let modelId: string;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
    const owner = env.principal(org);
    await env.call('dataModels.create', { key: 'orders', name: 'Orders' }, owner);
    const options = ['a', 'b', 'c', 'd'].map((value) => ({ value, label: value }));
    for (const field of [
      { key: 'amount', type: 'NUMBER' },
      { key: 'placed_at', type: 'DATETIME' },
      { key: 'code', type: 'TEXT' },
      { key: 'tags', type: 'MULTI_SELECT', config: { options } },
      { key: 'plain', type: 'NUMBER' },
    ]) {
      await env.call('dataModels.fields.create', { model: 'orders', name: field.key, ...field }, owner);
    }
    [{ id: modelId }] = await env.sql<{ id: string }>(`SELECT id FROM data_models WHERE organization_id = ? AND key = 'orders'`, [org.id]);
    await env.sql(
      `INSERT INTO records (id, organization_id, model_id, title, data, created_by, updated_by)
       SELECT gen_random_uuid(), ?, ?, 'Order ' || g,
         jsonb_build_object('title', 'Order ' || g, 'amount', g % 500, 'plain', g % 500, 'code', 'C-' || g,
           'placed_at', to_char(timestamptz '2030-01-01' + g * interval '1 hour', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'tags', jsonb_build_array(chr(97 + g % 4))),
         'seed', 'seed'
       FROM generate_series(1, 5000) g`,
      [org.id, modelId],
    );
  });
  afterAll(() => env.close());

  const owner = () => env.principal(org);
  const fieldState = async (key: string) =>
    (await env.call<{ items: FieldOutput[] }>('dataModels.fields.list', { model: 'orders' }, owner())).items.find((field) => field.key === key)!;
  const fieldId = async (key: string) =>
    (await env.sql<{ id: string }>('SELECT id FROM data_fields WHERE model_id = ? AND key = ?', [modelId, key]))[0].id;
  const indexState = async (key: string) =>
    env.sql<{ valid: boolean; definition: string }>(
      `SELECT i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ?`,
      [indexName(await fieldId(key))],
    );

  /** The plan of the exact SQL records.list runs, with seq scans priced out so small tables plan deterministically. */
  const plan = async (options: { filter?: FilterNode; sort?: string }) => {
    const em = env.db.orm.em.fork() as EntityManager;
    const loaded = await loadLiveModel(em, org.id, 'orders');
    const fields = definitionMap(loaded.fields);
    const query = buildListQuery({
      organizationId: org.id,
      modelId,
      roleIds: [],
      fields,
      sort: parseSort(options.sort, fields),
      filter: options.filter,
      limit: 26,
    });
    return em.transactional(async (tx) => {
      await tx.execute('SET LOCAL enable_seqscan = off');
      const rows = await tx.execute<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${query.text}`, [...query.params]);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  };

  it('builds a valid partial expression index, typed by the field, when a field becomes indexed', async () => {
    const result = await env.call<FieldOutput>('dataModels.fields.update', { model: 'orders', key: 'amount', indexed: true }, owner());
    expect(result).toMatchObject({ indexed: true, indexStatus: 'pending' });
    await expect(fieldState('amount')).resolves.toMatchObject({ indexed: true, indexStatus: 'ready', indexError: null });
    const [index] = await indexState('amount');
    expect(index.valid).toBe(true);
    expect(index.definition).toContain(`(((data ->> 'amount'::text))::numeric), id)`);
    expect(index.definition).toContain(`WHERE ((model_id = '${modelId}'::uuid) AND (deleted_at IS NULL))`);
  });

  it('is used by filters and sorts on the field (EXPLAIN)', async () => {
    await env.sql('ANALYZE records');
    const name = indexName(await fieldId('amount'));
    expect(await plan({ filter: { field: 'amount', op: 'eq', value: 42 } })).toContain(name);
    expect(await plan({ filter: { field: 'amount', op: 'gte', value: 495 } })).toContain(name);
    expect(await plan({ sort: 'amount' })).toContain(`Index Scan using ${name}`);
    expect(await plan({ sort: '-amount' })).toContain(`Index Scan Backward using ${name}`);
    // The unindexed twin of the same data gets no such help.
    expect(await plan({ filter: { field: 'plain', op: 'eq', value: 42 } })).not.toContain('records_field_');
  });

  it('indexes DATETIME, TEXT and MULTI_SELECT fields in the form their filters use', async () => {
    for (const key of ['placed_at', 'code', 'tags']) {
      await env.call('dataModels.fields.update', { model: 'orders', key, indexed: true }, owner());
      await expect(fieldState(key)).resolves.toMatchObject({ indexStatus: 'ready' });
    }
    await env.sql('ANALYZE records');
    expect(await plan({ filter: { field: 'placed_at', op: 'lt', value: '2030-01-02T00:00:00Z' } })).toContain(indexName(await fieldId('placed_at')));
    expect(await plan({ filter: { field: 'code', op: 'eq', value: 'C-77' } })).toContain(indexName(await fieldId('code')));
    expect(await plan({ filter: { field: 'tags', op: 'contains', value: 'b' } })).toContain(indexName(await fieldId('tags')));
    const [gin] = await indexState('tags');
    expect(gin.definition).toMatch(/USING gin/);
    const page = await env.call<{ items: Array<{ title: string }> }>(
      'records.list',
      { model: 'orders', filter: { field: 'code', op: 'eq', value: 'C-77' } },
      owner(),
    );
    expect(page.items.map((record) => record.title)).toEqual(['Order 77']);
  });

  it('uses the built-in indexes for the default sort and title sort', async () => {
    expect(await plan({})).toContain('records_live_by_created');
    expect(await plan({ sort: 'title' })).toContain('records_live_by_title');
  });

  it('drops the index when the field is unindexed or archived', async () => {
    await env.call('dataModels.fields.update', { model: 'orders', key: 'placed_at', indexed: false }, owner());
    await expect(fieldState('placed_at')).resolves.toMatchObject({ indexed: false, indexStatus: null });
    expect(await indexState('placed_at')).toEqual([]);
    expect(await env.sql('SELECT 1 FROM pg_statistic_ext WHERE stxname = ?', [`${indexName(await fieldId('placed_at'))}_stats`])).toEqual([]);

    const codeIndex = indexName(await fieldId('code'));
    await env.call('dataModels.fields.archive', { model: 'orders', key: 'code' }, owner());
    expect(await env.sql('SELECT 1 FROM pg_class WHERE relname = ?', [codeIndex])).toEqual([]);
  });

  it('records a failed build with its error and leaves no INVALID index behind; a retry after fixing the data succeeds', async () => {
    await env.call('dataModels.fields.create', { model: 'orders', key: 'weight', name: 'Weight', type: 'NUMBER' }, owner());
    // A stored value the numeric cast rejects: only reachable by writing around the procedures.
    await env.sql(`UPDATE records SET data = data || '{"weight": "heavy"}' WHERE id = (SELECT id FROM records WHERE model_id = ? LIMIT 1)`, [modelId]);
    await env.call('dataModels.fields.update', { model: 'orders', key: 'weight', indexed: true }, owner());
    await expect(fieldState('weight')).resolves.toMatchObject({
      indexed: true,
      indexStatus: 'failed',
      indexError: expect.stringMatching(/invalid input syntax for type numeric/),
    });
    expect(await indexState('weight')).toEqual([]);

    await env.sql(`UPDATE records SET data = data - 'weight' WHERE data->>'weight' = 'heavy'`);
    await env.call('dataModels.fields.update', { model: 'orders', key: 'weight', indexed: true }, owner());
    await expect(fieldState('weight')).resolves.toMatchObject({ indexStatus: 'ready', indexError: null });
    expect((await indexState('weight'))[0].valid).toBe(true);
  });

  const retryIndexes = async (permissions: readonly string[] = [RETRY_FIELD_INDEXES]) =>
    (
      await env.call<{ processed: number }>(
        'dataModels.fields.retryIndexes',
        {},
        systemPrincipal('retry-field-indexes', { permissions }),
      )
    ).processed;

  it('dataModels.fields.retryIndexes finishes builds and drops that a crash interrupted', async () => {
    const amountId = await fieldId('amount');
    await env.sql(`DROP INDEX ${indexName(amountId)}`);
    await env.sql(`UPDATE data_fields SET index_status = 'pending' WHERE id = ?`, [amountId]);
    const tagsId = await fieldId('tags');
    await env.sql(`UPDATE data_fields SET indexed = false, index_status = 'dropping' WHERE id = ?`, [tagsId]);

    // Only the task's own principal may run it; to a person it does not exist.
    await expect(retryIndexes([])).rejects.toMatchObject({ code: 'forbidden' });
    await expect(env.call('dataModels.fields.retryIndexes', {}, owner())).rejects.toMatchObject({ code: 'not_found' });
    await expect(fieldState('amount')).resolves.toMatchObject({ indexStatus: 'pending' });

    await expect(retryIndexes()).resolves.toBe(2);
    await expect(fieldState('amount')).resolves.toMatchObject({ indexStatus: 'ready' });
    expect((await indexState('amount'))[0].valid).toBe(true);
    await expect(fieldState('tags')).resolves.toMatchObject({ indexed: false, indexStatus: null });
    expect(await indexState('tags')).toEqual([]);
    await expect(retryIndexes()).resolves.toBe(0);
  });

  it('drops the indexes of an archived model', async () => {
    const amountIndex = indexName(await fieldId('amount'));
    await env.call('dataModels.archive', { key: 'orders' }, owner());
    expect(await env.sql('SELECT 1 FROM pg_class WHERE relname = ?', [amountIndex])).toEqual([]);
  });
});
