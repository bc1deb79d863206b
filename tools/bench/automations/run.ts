/**
 * Automation benchmark: `npm run bench:automations`.
 *
 * One organization, an event automation on `data-models.orders.record-created` whose one action
 * creates an invoice (through `records.create`, as the owner), and the runner the cron-runner
 * process runs, woken by the job queue once the queueing transaction committed. Measures, in one run:
 *   - 1,000 event-triggered runs: orders created by 4 concurrent callers with the runner live;
 *     runs/s (first order to last invoice) and event-to-record delay per run (the order's commit
 *     to the invoice's commit), p50 and p99;
 *   - the same 1,000 invoice creations called directly through `records.create` (8 concurrent
 *     callers, the runner's concurrency): records/s, the baseline;
 *   - the delay on an idle system, one order at a time: p50, p99.
 * Writes the "Automations" section of docs/benchmarks.md.
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EventEnvelope } from '@mrp/platform';
import { createAutomationRunner, startAutomationRunner } from '@mrp/runtime';
import { setUpInvoiceAutomation } from './invoice-automation';
import { writeSection } from '../shared/markdown-section';
import { percentile, sleep } from '../shared/samples';

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
const IDLE_SAMPLES = 100;


async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const { database, runtime, owner, call, close } = await setUpInvoiceAutomation('bench-automations');
  try {

    // When each order's invoice was committed: the runner publishes its events after commit.
    const invoicedAt = new Map<string, number>();
    let invoiceWaiter: (() => void) | undefined;
    runtime.bus.subscribe('data-models.invoices.record-created', (event: EventEnvelope) => {
      const record = (event.payload as { record: { data: { order: string } } }).record;
      invoicedAt.set(record.data.order, performance.now());
      invoiceWaiter?.();
    });
    const runner = await startAutomationRunner(runtime);
    const createOrder = async (title: string) => {
      const order = await call<{ id: string }>(owner, 'records.create', { model: 'orders', data: { title } });
      return { id: order.id, committedAt: performance.now() };
    };
    const invoiced = async (ids: string[]) => {
      while (!ids.every((id) => invoicedAt.has(id))) await new Promise<void>((done) => (invoiceWaiter = done));
    };

    // Idle: one order at a time, each waiting for its invoice.
    const idleDelays: number[] = [];
    for (let index = 0; index < IDLE_SAMPLES + 10; index++) {
      const order = await createOrder(`Idle ${index}`);
      await invoiced([order.id]);
      if (index >= 10) idleDelays.push((invoicedAt.get(order.id) as number) - order.committedAt);
      await sleep(5);
    }

    // Load: RUNS orders from 4 callers, the runner live.
    const orders: Array<{ id: string; committedAt: number }> = [];
    const loadStarted = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async (_value, caller) => {
        for (let index = caller; index < RUNS; index += 4) orders.push(await createOrder(`Load ${index}`));
      }),
    );
    await invoiced(orders.map((order) => order.id));
    const liveSeconds = (Math.max(...orders.map((order) => invoicedAt.get(order.id) as number)) - loadStarted) / 1000;
    const loadDelays = orders.map((order) => (invoicedAt.get(order.id) as number) - order.committedAt);
    await runner.close();

    // Throughput of the runner alone: RUNS orders queued with no runner up, then drained.
    const queued: string[] = [];
    for (let index = 0; index < RUNS; index++) queued.push((await createOrder(`Queued ${index}`)).id);
    const drainer = createAutomationRunner(runtime);
    const drainStarted = performance.now();
    const drained = await drainer.drain(RUNS);
    const loadSeconds = (performance.now() - drainStarted) / 1000;
    await invoiced(queued);
    if (drained !== RUNS) throw new Error(`the runner took ${drained} of ${RUNS} runs`);
    const [{ failed }] = await runtime.orm.em.fork().execute<Array<{ failed: number }>>("SELECT count(*)::int AS failed FROM automation_runs WHERE status <> 'succeeded'");
    if (failed > 0) throw new Error(`${failed} runs did not succeed`);

    // Baseline: the same creations, called directly, 8 callers.
    const directStarted = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async (_value, caller) => {
        for (let index = caller; index < RUNS; index += 8) {
          await call(owner, 'records.create', { model: 'invoices', data: { title: `Direct ${index}`, order: `direct-${index}` } });
        }
      }),
    );
    const directSeconds = (performance.now() - directStarted) / 1000;

    const runRate = RUNS / loadSeconds;
    const directRate = RUNS / directSeconds;
    const fmt = (value: number) => Math.round(value).toLocaleString('en');
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const section = [
      '## Automations',
      '',
      `Run by \`npm run bench:automations\` on ${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores, Node ${process.version}, PostgreSQL ${database.postgresVersion} (${database.server}); 1-minute load average ${loadBefore.toFixed(1)} before and ${loadavg()[0].toFixed(1)} after.`,
      '',
      '| Measurement | Figure | Ratio |',
      '|---|---|---|',
      `| ${RUNS.toLocaleString('en')} queued event-triggered runs, each creating one record, drained by the runner | ${fmt(runRate)} runs/s | ${(runRate / directRate).toFixed(2)}x of the direct creations |`,
      `| ${RUNS.toLocaleString('en')} runs live: orders created by 4 callers while the runner runs, first order to last invoice | ${fmt(RUNS / liveSeconds)} orders and runs/s | |`,
      `| The same ${RUNS.toLocaleString('en')} creations through \`records.create\`, called directly | ${fmt(directRate)} records/s | baseline |`,
      `| Event-to-record delay under that load (p50 / p99) | ${ms(percentile(loadDelays, 0.5))} / ${ms(percentile(loadDelays, 0.99))} | |`,
      `| Event-to-record delay, idle (p50 / p99) | ${ms(percentile(idleDelays, 0.5))} / ${ms(percentile(idleDelays, 0.99))} | |`,
      '',
      `- The runs: orders created through \`records.create\` by 4 concurrent callers; each order's transaction queues a run and its job (the automations outbox; the job goes with the COMMIT) and announces it once committed; the runner (8 runs at once, as in the cron-runner) takes the jobs from the \`automation-runs\` queue, admits each batch in one call (\`automations.runs.admit\`: attempts, chain depth, the rate bucket) and executes each run in one transaction (\`automations.runs.execute\`: \`automation.run-started\`, the owner resolved from live rows, the event's record read as the owner, \`records.create\` as the owner, the outcome with the COMMIT and \`automation.run-succeeded\`). Drained: the same, with the orders (and so the runs) queued first and the runner started after.`,
      '- The delay: from the order\'s commit (its procedure returned) to the invoice\'s commit (its event published).',
      `- The baseline: the same invoice creations called directly, 8 callers (the runner's concurrency).`,
      `- Idle: ${IDLE_SAMPLES} orders one at a time (after 10 warm-up).`,
      '',
    ].join('\n');
    console.log(`\n${section}`);
    writeSection(resolve(__dirname, '../../../docs/benchmarks.md'), section);
  } finally {
    await close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
