/**
 * API benchmark: `npm run bench:api`.
 *
 * Starts, in this process and on one throwaway database (embedded PostgreSQL, or the server of
 * DATABASE_URL), the real api (buildApp + runtime, rate limit raised, logging silent) and a
 * minimal node:http + pg server doing the same work by hand, seeds an organization, a model,
 * keys and a record through the procedures, and drives both with autocannon on
 *   GET  /api/v1/records/{id}
 *   POST /api/v1/models/{key}/records
 * twice: with a key per connection (the measured load: at the contract's 5 requests/s per key,
 * hundreds of requests a second only ever come from many keys), and with one key on every
 * connection (every request then queues on one rate-limit bucket row; reported, not targeted).
 * Targets: the API reaches >= 0.6x the minimal server's requests/s on GET and >= 0.5x on POST.
 * Prints the figures and writes them to the "API" section of docs/benchmarks.md.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { startApi, type RunningServer } from './api-server';
import { measure, type LoadFigures, type LoadSettings } from './load';
import { startMinimalServer } from './minimal-server';
import { writeSection } from './report';
import { MODEL_KEY, sampleData, seed } from './seed';
import { createThrowawayDatabase } from '../shared/throwaway-database';

const SETTINGS: LoadSettings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  durationSeconds: Number(process.env.BENCH_DURATION_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 3),
};
// Both servers get the same number of database connections.
const POOL_SIZE = 10;
const TARGETS = { get: 0.6, post: 0.5 } as const;

interface Comparison {
  route: string;
  keys: string;
  api: LoadFigures;
  minimal: LoadFigures;
  ratio: number;
  /** Absent for the informational one-key runs. */
  target?: number;
}

const rate = (figures: LoadFigures) => `${Math.round(figures.requestsPerSecond).toLocaleString('en-US')} req/s`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function compare(
  { route, keys, target }: Pick<Comparison, 'route' | 'keys' | 'target'>,
  run: (server: RunningServer) => Promise<LoadFigures>,
  api: RunningServer,
  minimal: RunningServer,
): Promise<Comparison> {
  // The minimal server first: any warming of PostgreSQL's caches then favours the baseline, not the API.
  const minimalFigures = await run(minimal);
  console.log(`  ${route} (${keys}) minimal: ${rate(minimalFigures)}, p50 ${ms(minimalFigures.p50)}, p99 ${ms(minimalFigures.p99)}`);
  const apiFigures = await run(api);
  console.log(`  ${route} (${keys}) api:     ${rate(apiFigures)}, p50 ${ms(apiFigures.p50)}, p99 ${ms(apiFigures.p99)}`);
  return { route, keys, api: apiFigures, minimal: minimalFigures, ratio: apiFigures.requestsPerSecond / minimalFigures.requestsPerSecond, target };
}

const verdict = ({ ratio, target }: Comparison) => (target === undefined ? 'not targeted' : `>= ${target}x: ${ratio >= target ? 'met' : 'MISSED'}`);

function section(comparisons: Comparison[], context: { server: string; postgresVersion: string; loadBefore: number; loadAfter: number }): string {
  const date = new Date().toISOString().slice(0, 10);
  const rows = comparisons.flatMap((comparison) => {
    const { route, keys, api, minimal, ratio } = comparison;
    return [
      `| ${route} | ${keys} | API (Koa + procedures) | ${rate(api)} | ${ms(api.p50)} | ${ms(api.p99)} | ${ratio.toFixed(2)}x | ${verdict(comparison)} |`,
      `| ${route} | ${keys} | minimal node:http + pg | ${rate(minimal)} | ${ms(minimal.p50)} | ${ms(minimal.p99)} | baseline |  |`,
    ];
  });
  return [
    '## API',
    '',
    `Run by \`npm run bench:api\` on ${date}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, PostgreSQL ${context.postgresVersion} (${context.server}); ` +
      `1-minute load average ${context.loadBefore.toFixed(1)} before and ${context.loadAfter.toFixed(1)} after (the machine is shared).`,
    '',
    '| Route | Keys | Server | Throughput | p50 | p99 | Ratio | Target |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `- autocannon, ${SETTINGS.connections} connections, no pipelining, ${SETTINGS.durationSeconds} s per measurement after a ${SETTINGS.warmupSeconds} s warm-up, ` +
      'load generated from a worker thread; both servers run in the benchmark process, one at a time, on the same database with ' +
      `${POOL_SIZE} pooled connections each.`,
    '- API: the real `buildApp` with its runtime as `main.ts` wires it: request context, flag check, key authentication ' +
      '(one query, plus a `last_used_at` UPDATE sent on every request and not awaited), the PostgreSQL token bucket (one upsert per request; rate limit raised to 1,000,000/s so it never denies), ' +
      'then the procedure through `invokeProcedure` (input validation, permission check; `records.get` reads the record and the model fields, ' +
      '`records.create` runs a transaction with model and field lookups, field validation, the insert and the event).',
    '- Minimal: `node:http` + `pg`; one query authenticates (SHA-256 key lookup joined to users, memberships, grants and roles), ' +
      'one more reads the record (organization, live, row-level access) or inserts it (model resolved by key inside the INSERT). ' +
      'No field validation, no events, no rate limit.',
    '- POST bodies carry a title and four fields (SELECT, NUMBER, EMAIL, TEXT); GET reads one record of that model.',
  ].join('\n');
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  console.log('Preparing a throwaway database...');
  const database = await createThrowawayDatabase();
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  let minimal: RunningServer | undefined;
  try {
    api = await startApi(database.url, POOL_SIZE);
    const seeded = await seed(api.runtime, SETTINGS.connections);
    minimal = await startMinimalServer(database.url, POOL_SIZE);
    console.log(`Seeded; measuring with ${SETTINGS.connections} connections, ${SETTINGS.durationSeconds} s each (after ${SETTINGS.warmupSeconds} s warm-up):`);

    const spread = { tokens: seeded.tokens };
    const shared = { headers: { Authorization: `Bearer ${seeded.tokens[0]}` } };
    const getRecord = (keys: { tokens?: string[]; headers?: Record<string, string> }) => (server: RunningServer) =>
      measure({ url: `${server.url}/api/v1/records/${seeded.recordId}`, method: 'GET', headers: {}, ...keys, expectedStatus: 200 }, SETTINGS);
    const postRecord = (keys: { tokens?: string[]; headers?: Record<string, string> }) => (server: RunningServer) =>
      measure(
        {
          url: `${server.url}/api/v1/models/${MODEL_KEY}/records`,
          method: 'POST',
          ...keys,
          headers: { ...keys.headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ data: sampleData('Benchmark order') }),
          expectedStatus: 201,
        },
        SETTINGS,
      );
    const perConnection = `${SETTINGS.connections} (one per connection)`;
    const comparisons = [
      await compare({ route: 'GET /api/v1/records/{id}', keys: perConnection, target: TARGETS.get }, getRecord(spread), api, minimal),
      await compare({ route: 'POST /api/v1/models/{key}/records', keys: perConnection, target: TARGETS.post }, postRecord(spread), api, minimal),
      await compare({ route: 'GET /api/v1/records/{id}', keys: '1 (shared)' }, getRecord(shared), api, minimal),
      await compare({ route: 'POST /api/v1/models/{key}/records', keys: '1 (shared)' }, postRecord(shared), api, minimal),
    ];

    console.log('');
    for (const comparison of comparisons) {
      console.log(`${comparison.route}, ${comparison.keys} keys: API at ${comparison.ratio.toFixed(2)}x of the minimal server (${verdict(comparison)})`);
    }
    const docs = resolve(__dirname, '../../../docs/benchmarks.md');
    writeSection(docs, section(comparisons, { ...database, loadBefore, loadAfter: loadavg()[0] }));
    console.log(`\nWrote the "API" section of ${docs}`);
  } finally {
    await minimal?.close();
    await api?.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:api: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
