/**
 * Automation benchmark: `npm run bench:automations`.
 *
 * One organization, an event automation on `data-models.orders.record-created` whose one action
 * creates an invoice (through `records.create`, as the owner), and the runner the cron-runner
 * process runs, woken by the job queue once the queueing transaction committed. Measures, in one run:
 *   - 1,000 event-triggered runs: orders created by 4 concurrent callers with the runner live;
 *     runs/s (first order to last invoice) and event-to-record delay per run (the order's commit
 *     to the invoice's commit), p50 and p99;
 *   - 1,000 runs queued with no runner up, then drained, against the same 1,000 invoice creations
 *     called directly through `records.create` (8 concurrent callers, the runner's slots): runs/s
 *     against records/s, in BENCH_ROUNDS rounds (default 3), the ratio the median of the rounds';
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
/** Drained runs against direct creations, alternating: the ratio is the median of the rounds'. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
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

    // Throughput of the runner alone against direct creations, in ROUNDS rounds (the host's speed
    // drifts from minute to minute): RUNS orders queued with no runner up, then drained; then the
    // same number of invoices created directly, 8 callers. The ratio is the median of the rounds'.
    const rounds: Array<{ runRate: number; directRate: number }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const queued: string[] = [];
      for (let index = 0; index < RUNS; index++) queued.push((await createOrder(`Queued ${round}.${index}`)).id);
      const drainer = createAutomationRunner(runtime);
      const drainStarted = performance.now();
      const drained = await drainer.drain(RUNS);
      const drainSeconds = (performance.now() - drainStarted) / 1000;
      await invoiced(queued);
      if (drained !== RUNS) throw new Error(`the runner took ${drained} of ${RUNS} runs`);
      const directStarted = performance.now();
      await Promise.all(
        Array.from({ length: 8 }, async (_value, caller) => {
          for (let index = caller; index < RUNS; index += 8) {
            await call(owner, 'records.create', { model: 'invoices', data: { title: `Direct ${round}.${index}`, order: `direct-${round}-${index}` } });
          }
        }),
      );
      rounds.push({ runRate: RUNS / drainSeconds, directRate: RUNS / ((performance.now() - directStarted) / 1000) });
    }
    const [{ failed }] = await runtime.orm.em.fork().execute<Array<{ failed: number }>>("SELECT count(*)::int AS failed FROM automation_runs WHERE status <> 'succeeded'");
    if (failed > 0) throw new Error(`${failed} runs did not succeed`);
    const ratios = rounds.map((round) => round.runRate / round.directRate);
    const median = (values: number[]) => percentile(values, 0.5);

    const runRate = median(rounds.map((round) => round.runRate));
    const directRate = median(rounds.map((round) => round.directRate));
    const fmt = (value: number) => Math.round(value).toLocaleString('en');
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const section = [
      '## Automations',
      '',
      `Run by \`npm run bench:automations\` on ${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores, Node ${process.version}, PostgreSQL ${database.postgresVersion} (${database.server}); 1-minute load average ${loadBefore.toFixed(1)} before and ${loadavg()[0].toFixed(1)} after.`,
      '',
      '| Measurement | Figure | Ratio |',
      '|---|---|---|',
      `| ${RUNS.toLocaleString('en')} queued event-triggered runs, each creating one record, drained by the runner (median of ${ROUNDS} rounds) | ${fmt(runRate)} runs/s | ${median(ratios).toFixed(2)}x of the direct creations (median of the rounds: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}) |`,
      `| ${RUNS.toLocaleString('en')} runs live: orders created by 4 callers while the runner runs, first order to last invoice | ${fmt(RUNS / liveSeconds)} orders and runs/s | |`,
      `| The same ${RUNS.toLocaleString('en')} creations through \`records.create\`, called directly (median of ${ROUNDS} rounds) | ${fmt(directRate)} records/s | baseline |`,
      `| Event-to-record delay under that load (p50 / p99) | ${ms(percentile(loadDelays, 0.5))} / ${ms(percentile(loadDelays, 0.99))} | |`,
      `| Event-to-record delay, idle (p50 / p99) | ${ms(percentile(idleDelays, 0.5))} / ${ms(percentile(idleDelays, 0.99))} | |`,
      '',
      `- The runs: orders created through \`records.create\` by 4 concurrent callers; each order's transaction queues a run and its job (the automations outbox; the job goes with the COMMIT) and announces it once committed; the runner (8 slots, as in the cron-runner) takes the jobs from the \`automation-runs\` queue, up to 16 for each free slot, admits what it took in one call (\`automations.runs.admit\`: attempts, chain depth, the rate bucket) and executes up to 16 waiting runs of one organization in one transaction per slot (\`automations.runs.execute\`: the runs locked, each run's \`automation.run-started\`, the owner resolved from live rows once, the events' records read as the owner in one \`records.list\`, \`records.create\` as the owner, \`automation.run-succeeded\`, and the outcomes in one statement with the COMMIT; decision 163). Drained: the same, with the orders (and so the runs) queued first and the runner started after.`,
      '- The delay: from the order\'s commit (its procedure returned) to the invoice\'s commit (its event published).',
      `- The baseline: the same invoice creations called directly, 8 callers (the runner's 8 slots), right after each round's drain.`,
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
