/**
 * Batch create benchmark: `npx tsx tools/bench/records/batch.ts`.
 *
 * On a throwaway database, creates BENCH_BATCH_RECORDS (default 100,000) records in batches of
 * 1,000 through `records.createMany`, and the same rows as bare multi-row INSERTs through `pg`,
 * in alternating blocks, plus 2,000 single `records.create` calls; prints the three rates
 * (targets: the batch >= 10x single creates and >= 0.4x the bare multi-row INSERT).
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import {
  FeatureFlagStore,
  createLogger,
  createOrm,
  invokeProcedure,
  newId,
  noopEventDispatcher,
  platformModule,
  ProcedureRegistry,
  type Orm,
  type Principal,
} from '@mrp/platform';
import { ALL_PERMISSIONS, authzModule } from '@mrp/authz';
import { createDataModelsProcedures, dataModelsModule } from '@mrp/data-models';
import { createThrowawayDatabase } from '../shared/throwaway-database';

const RECORDS = Number(process.env.BENCH_BATCH_RECORDS ?? 100_000);
const BATCH = 1_000;
const SINGLES = 2_000;
const logger = createLogger({ name: 'bench', level: 'silent' });

async function main(): Promise<void> {
  const throwaway = await createThrowawayDatabase();
  let orm: Orm | undefined;
  const client = new Client({ connectionString: throwaway.url });
  try {
    const benchOrm = await createOrm({ databaseUrl: throwaway.url, modules: [platformModule, authzModule, dataModelsModule], poolSize: 4 });
    orm = benchOrm;
    await client.connect();
    const registry = new ProcedureRegistry(createDataModelsProcedures({ cursorSecret: 'bench', notifier: { notify: async () => [] } }));
    const organizationId = newId();
    await client.query(`INSERT INTO organizations (id, name, slug, created_by) VALUES ($1, 'Bench', 'bench', 'bench')`, [organizationId]);
    const principal: Principal = {
      userId: 'bench-user',
      kind: 'HUMAN',
      email: 'bench@example.com',
      displayName: 'Bench',
      isPlatformAdmin: false,
      organizationId,
      roleIds: [],
      permissions: new Set(ALL_PERMISSIONS),
      credential: { type: 'session' },
    };
    const flags = new FeatureFlagStore(benchOrm);
    const call = <T>(name: string, input: unknown) =>
      invokeProcedure<T>(registry.require(name), input, { em: benchOrm.em.fork(), principal, correlationId: 'bench' }, { dispatcher: noopEventDispatcher, logger, flags });

    await call('dataModels.create', { key: 'orders', name: 'Orders' });
    const options = (values: string[]) => values.map((value) => ({ value, label: value }));
    for (const field of [
      { key: 'amount', type: 'NUMBER' },
      { key: 'quantity', type: 'NUMBER', config: { precision: 0 } },
      { key: 'status', type: 'SELECT', config: { options: options(['new', 'paid', 'shipped', 'returned']) } },
      { key: 'tags', type: 'MULTI_SELECT', config: { options: options(['a', 'b', 'c', 'd', 'e']) } },
      { key: 'due', type: 'DATE' },
      { key: 'placed_at', type: 'DATETIME' },
      { key: 'paid', type: 'BOOLEAN' },
      { key: 'note', type: 'TEXT' },
      { key: 'contact', type: 'EMAIL' },
    ]) {
      await call('dataModels.fields.create', { model: 'orders', name: field.key, ...field });
    }
    const [{ id: modelId }] = (await client.query<{ id: string }>(`SELECT id FROM data_models WHERE key = 'orders'`)).rows;
    const recordData = (index: number) => ({
      title: `Created ${index}`,
      amount: index % 100000,
      quantity: index % 50,
      status: 'new',
      tags: ['a'],
      due: '2031-01-01',
      placed_at: '2031-01-01T10:00:00.000Z',
      paid: false,
      note: `Created note ${index}`,
      contact: 'creator@example.com',
    });
    const createBatch = (from: number) =>
      call('records.createMany', { model: 'orders', records: Array.from({ length: BATCH }, (_, index) => ({ data: recordData(from + index) })) });
    const bareBatch = (from: number) => {
      const params: unknown[] = [];
      const rows = Array.from({ length: BATCH }, (_, index) => {
        const data = recordData(from + index);
        params.push(newId(), organizationId, modelId, data.title, JSON.stringify(data), 'bench-user');
        const at = params.length - 6;
        return `($${at + 1}::uuid, $${at + 2}::uuid, $${at + 3}::uuid, $${at + 4}, $${at + 5}::jsonb, $${at + 6}, $${at + 6})`;
      });
      return client.query(`INSERT INTO records (id, organization_id, model_id, title, data, created_by, updated_by) VALUES ${rows.join(', ')}`, params);
    };

    for (let index = 0; index < 3; index++) {
      await createBatch(index * BATCH);
      await bareBatch(index * BATCH);
    }
    const timed = { batch: 0, bare: 0, single: 0 };
    for (let from = 0; from < RECORDS; from += BATCH) {
      const batchStarted = performance.now();
      await createBatch(from);
      timed.batch += performance.now() - batchStarted;
      const bareStarted = performance.now();
      await bareBatch(from);
      timed.bare += performance.now() - bareStarted;
    }
    for (let index = 0; index < 50; index++) await call('records.create', { model: 'orders', data: recordData(index) });
    const singleStarted = performance.now();
    for (let index = 0; index < SINGLES; index++) await call('records.create', { model: 'orders', data: recordData(index) });
    timed.single = performance.now() - singleStarted;

    const rate = (count: number, ms: number) => count / (ms / 1000);
    const batchRate = rate(RECORDS, timed.batch);
    const bareRate = rate(RECORDS, timed.bare);
    const singleRate = rate(SINGLES, timed.single);
    console.log(`records.createMany, batches of ${BATCH}: ${batchRate.toFixed(0)} records/s (${RECORDS} records)`);
    console.log(`bare multi-row INSERT (pg), same rows:  ${bareRate.toFixed(0)} records/s -> batch is ${(batchRate / bareRate).toFixed(2)}x (target >= 0.4x)`);
    console.log(`records.create, one at a time:         ${singleRate.toFixed(0)} records/s -> batch is ${(batchRate / singleRate).toFixed(1)}x (target >= 10x)`);
  } finally {
    await client.end().catch(() => undefined);
    await orm?.close(true);
    await throwaway.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
