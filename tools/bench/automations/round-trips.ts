/**
 * What one automation run costs the database, counted: `npx tsx tools/bench/automations/round-trips.ts`.
 *
 * The same organization and automation as `bench:automations` (an order's creation queues a run
 * whose one action creates an invoice); RUNS orders are queued, then drained by the runner while
 * every query `pg` sends is counted (a pipeline is one round trip of several statements). Prints the
 * round trips, statements and Node CPU per run, then the same for direct creations, each with the statements behind them.
 * Writes nothing to the docs: a figure for the notes of benchmarks.md, "Automations".
 */
import { Client } from 'pg';
import { resolveSessionPrincipal } from '@mrp/authz';
import { invokeProcedure, loadConfig, type Principal } from '@mrp/platform';
import { createAutomationRunner, createRuntime, type Runtime } from '@mrp/runtime';
import { createThrowawayDatabase } from '../shared/throwaway-database';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const ADMIN = { sub: '0190cccc-0000-7000-8000-00000000be03', email: 'bench-admin@bench.example', name: 'Bench Admin' };

const counts = new Map<string, number>();
let statements = 0;
let counting = false;
const query = Client.prototype.query as unknown as (...args: unknown[]) => unknown;
(Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0] as { text?: string; statements?: ReadonlyArray<{ text: string }> } | string;
    const texts = typeof first === 'string' ? [first] : first?.statements ? first.statements.map((statement) => statement.text) : [first?.text ?? '?'];
    // A simple-protocol message may hold several statements (`begin;INSERT ...`).
    statements += texts.reduce((sum, text) => sum + text.split(';').filter((part) => part.trim()).length, 0);
    const key = texts.map((text) => text.replace(/\s+/g, ' ').trim().slice(0, 60)).join(' | ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return query.apply(this, args);
};

async function counted(label: string, units: number, work: () => Promise<unknown>): Promise<void> {
  counts.clear();
  statements = 0;
  counting = true;
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  counting = false;
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  const cpuMs = (used.user + used.system) / 1000 / units;
  console.log(`\n${label}: ${(total / units).toFixed(2)} round trips, ${(statements / units).toFixed(2)} statements and ${cpuMs.toFixed(2)} ms of Node CPU each`);
  for (const [text, count] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${(count / units).toFixed(2)}  ${text}`);
}

async function main(): Promise<void> {
  const database = await createThrowawayDatabase();
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: database.url, PLATFORM_ADMIN_EMAILS: ADMIN.email, LOG_LEVEL: 'silent' });
  const runtime: Runtime = await createRuntime(config, { name: 'bench-automation-round-trips', poolSize: 12 });
  try {
    const principal = (organizationId: string | null): Promise<Principal> =>
      resolveSessionPrincipal(runtime.orm.em.fork(), ADMIN, { organizationId, platformAdminEmails: config.platformAdminEmails });
    const call = <T>(as: Principal, name: string, input: unknown) =>
      invokeProcedure<T>(runtime.procedures.require(name), input, { em: runtime.orm.em.fork(), principal: as, correlationId: 'bench' }, runtime.invocationDeps);
    const organization = await call<{ id: string }>(await principal(null), 'organizations.create', { name: 'Bench', slug: 'bench' });
    const owner = await principal(organization.id);
    await call(owner, 'dataModels.create', { key: 'orders', name: 'Orders' });
    await call(owner, 'dataModels.create', { key: 'invoices', name: 'Invoices' });
    await call(owner, 'dataModels.fields.create', { model: 'invoices', key: 'order', name: 'Order', type: 'TEXT' });
    await call(owner, 'automations.create', {
      name: 'Invoice each order',
      trigger: { type: 'event', eventType: 'data-models.orders.record-created' },
      actions: [{ type: 'create-record', model: 'invoices', data: { title: 'Invoice {{event.payload.record.title}}', order: '{{event.payload.recordId}}' } }],
      maxRunsPerMinute: 6000,
    });
    // Warm-up: caches filled, statements prepared on the pool's connections.
    for (let index = 0; index < 20; index++) await call(owner, 'records.create', { model: 'orders', data: { title: `Warm-up ${index}` } });
    await createAutomationRunner(runtime).drain(100);

    for (let index = 0; index < RUNS; index++) await call(owner, 'records.create', { model: 'orders', data: { title: `Queued ${index}` } });
    const runner = createAutomationRunner(runtime);
    let drained = 0;
    await counted(`${RUNS} runs drained`, RUNS, async () => (drained = await runner.drain(RUNS)));
    if (drained !== RUNS) throw new Error(`the runner took ${drained} of ${RUNS} runs`);
    await counted(`${RUNS} direct creations`, RUNS, async () => {
      for (let index = 0; index < RUNS; index++) await call(owner, 'records.create', { model: 'invoices', data: { title: `Direct ${index}`, order: `direct-${index}` } });
    });
  } finally {
    await runtime.close();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
