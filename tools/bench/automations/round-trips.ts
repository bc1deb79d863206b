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
import { createAutomationRunner } from '@mrp/runtime';
import { setUpInvoiceAutomation } from './invoice-automation';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);

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
  const { runtime, owner, call, close } = await setUpInvoiceAutomation('bench-automation-round-trips');
  try {
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
    await close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
