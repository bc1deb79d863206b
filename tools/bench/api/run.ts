/**
 * API benchmark: `npm run bench:api`.
 *
 * Starts, in this process and on one throwaway database (embedded PostgreSQL, or the server of
 * DATABASE_URL), the real api (buildApp + runtime, rate limit raised, logging silent) and two
 * baselines doing the same work by hand with node:http + pg: the minimal server (`pool.query`)
 * and a tuned one (named statements, planned once per connection). Seeds an organization, a
 * model, keys and a record through the procedures, and drives each server with autocannon on
 *   GET  /api/v1/records/{id}
 *   POST /api/v1/models/{key}/records
 * with a key per connection: at the contract's 5 requests/s per key, hundreds of requests a second
 * only ever come from many keys. One more API run shares one key across every connection, so
 * every request queues on the same rate-limit bucket row (reported, not targeted).
 * Targets: the API reaches >= 0.6x the minimal server's requests/s on GET and >= 0.5x on POST.
 * Prints the figures and writes them to the "API" section of docs/benchmarks.md.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { startApi, type RunningServer } from './api-server';
import { measure, type LoadFigures, type LoadSettings } from './load';
import { startMinimalServer } from './minimal-server';
import { writeSection } from '../shared/markdown-section';
import { MODEL_KEY, sampleData, seed, type Seeded } from './seed';
import { createThrowawayDatabase } from '../shared/throwaway-database';

const SETTINGS: LoadSettings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  durationSeconds: Number(process.env.BENCH_DURATION_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 3),
};
// Every server gets the same number of database connections.
const POOL_SIZE = 10;
const TARGETS = { get: 0.6, post: 0.5 } as const;

interface Servers {
  api: RunningServer;
  minimal: RunningServer;
  tuned: RunningServer;
}

/** How the connections authenticate: a key each, or one key for all. */
type Keys = { tokens: string[]; headers: Record<string, string> } | { headers: Record<string, string> };

interface RouteFigures {
  route: string;
  target: number;
  minimal: LoadFigures;
  tuned: LoadFigures;
  api: LoadFigures;
  /** The API again, every connection on one key. */
  apiOneKey: LoadFigures;
}

const rate = (figures: LoadFigures) => `${Math.round(figures.requestsPerSecond).toLocaleString('en-US')} req/s`;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const ratio = (figures: LoadFigures, baseline: LoadFigures) => figures.requestsPerSecond / baseline.requestsPerSecond;
const met = (figures: RouteFigures) => ratio(figures.api, figures.minimal) >= figures.target;

function routeRuns(seeded: Seeded) {
  const getRecord = (server: RunningServer, keys: Keys) =>
    measure({ url: `${server.url}/api/v1/records/${seeded.recordId}`, method: 'GET', ...keys, expectedStatus: 200 }, SETTINGS);
  const postRecord = (server: RunningServer, keys: Keys) =>
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
  return [
    { route: 'GET /api/v1/records/{id}', target: TARGETS.get, run: getRecord },
    { route: 'POST /api/v1/models/{key}/records', target: TARGETS.post, run: postRecord },
  ];
}

async function measureRoute(
  { route, target, run }: ReturnType<typeof routeRuns>[number],
  servers: Servers,
  seeded: Seeded,
): Promise<RouteFigures> {
  const perConnection: Keys = { tokens: seeded.tokens, headers: {} };
  const shared: Keys = { headers: { Authorization: `Bearer ${seeded.tokens[0]}` } };
  const log = (name: string, figures: LoadFigures) =>
    console.log(`  ${route} ${name.padEnd(14)} ${rate(figures)}, p50 ${ms(figures.p50)}, p99 ${ms(figures.p99)}`);
  // The baselines first: any warming of PostgreSQL's caches then favours them, not the API.
  const minimal = await run(servers.minimal, perConnection);
  log('minimal', minimal);
  const tuned = await run(servers.tuned, perConnection);
  log('tuned', tuned);
  const api = await run(servers.api, perConnection);
  log('api', api);
  const apiOneKey = await run(servers.api, shared);
  log('api, one key', apiOneKey);
  return { route, target, minimal, tuned, api, apiOneKey };
}

function section(results: RouteFigures[], context: { server: string; postgresVersion: string; loadBefore: number; loadAfter: number }): string {
  const date = new Date().toISOString().slice(0, 10);
  const keys = `${SETTINGS.connections}, one per connection`;
  const rows = results.flatMap((figures) => {
    const { route, target, minimal, tuned, api, apiOneKey } = figures;
    const row = (server: string, keyShape: string, load: LoadFigures, comparison: string) =>
      `| ${route} | ${server} | ${keyShape} | ${rate(load)} | ${ms(load.p50)} | ${ms(load.p99)} | ${comparison} |`;
    return [
      row('API (Koa + procedures)', keys, api, `${ratio(api, minimal).toFixed(2)}x of minimal (target >= ${target}x: ${met(figures) ? 'met' : 'MISSED'}); ${ratio(api, tuned).toFixed(2)}x of tuned`),
      row('minimal node:http + pg', keys, minimal, 'baseline'),
      row('tuned node:http + pg', keys, tuned, 'reference'),
      row('API (Koa + procedures)', '1, shared', apiOneKey, `${ratio(apiOneKey, api).toFixed(2)}x of the API with a key per connection`),
    ];
  });
  return [
    '## API',
    '',
    `Run by \`npm run bench:api\` on ${date}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, PostgreSQL ${context.postgresVersion} (${context.server}); ` +
      `1-minute load average ${context.loadBefore.toFixed(1)} before and ${context.loadAfter.toFixed(1)} after (the machine is shared).`,
    '',
    '| Route | Server | Keys | Throughput | p50 | p99 | Ratio |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `- autocannon, ${SETTINGS.connections} connections, no pipelining, ${SETTINGS.durationSeconds} s per measurement after a ${SETTINGS.warmupSeconds} s warm-up, ` +
      'load generated from a worker thread; the servers run in the benchmark process, one at a time, on the same database with ' +
      `${POOL_SIZE} pooled connections each. Each connection authenticates with its own key (all the organization owner's, full access), ` +
      'as traffic at these rates must: one key is limited to 5 requests/s.',
    '- API: the real `buildApp` with its runtime as `main.ts` wires it: request context, flag check, one statement that looks the key up ' +
      '(owner, membership, live role permissions) and takes a token from its PostgreSQL bucket (rate limit raised to 1,000,000/s so it ' +
      'never denies; a real write per request), then the procedure through `invokeProcedure` (input validation, permission check). ' +
      '`records.get` reads the record with a prepared statement and uses the model fields cached per process when their version matches ' +
      'the one read with the record; `records.create` validates against the cached fields and inserts in a transaction (BEGIN, the ' +
      'prepared INSERT, COMMIT), and emits its event.',
    '- Minimal: `node:http` + `pg` with `pool.query(text, values)`; one query authenticates (SHA-256 key lookup joined to users, ' +
      'memberships, grants and roles), one more reads the record (organization, live, row-level access) or inserts it (model resolved ' +
      'by key inside the INSERT). No field validation, no events, no rate limit. Tuned: the same server with named statements.',
    '- "1, shared": the API with every connection on one key, so every request updates the same bucket row under its lock.',
    '- POST bodies carry a title and four fields (SELECT, NUMBER, EMAIL, TEXT); GET reads one record of that model.',
  ].join('\n');
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  console.log('Preparing a throwaway database...');
  const database = await createThrowawayDatabase();
  const started: RunningServer[] = [];
  try {
    const api = await startApi(database.url, POOL_SIZE);
    started.push(api);
    const seeded = await seed(api.runtime, SETTINGS.connections);
    const minimal = await startMinimalServer(database.url, { poolSize: POOL_SIZE, prepared: false });
    started.push(minimal);
    const tuned = await startMinimalServer(database.url, { poolSize: POOL_SIZE, prepared: true });
    started.push(tuned);
    console.log(`Seeded; measuring with ${SETTINGS.connections} connections, ${SETTINGS.durationSeconds} s each (after ${SETTINGS.warmupSeconds} s warm-up):`);

    const results: RouteFigures[] = [];
    for (const route of routeRuns(seeded)) results.push(await measureRoute(route, { api, minimal, tuned }, seeded));

    console.log('');
    for (const figures of results) {
      console.log(
        `${figures.route}: API at ${ratio(figures.api, figures.minimal).toFixed(2)}x of the minimal server ` +
          `(target >= ${figures.target}x: ${met(figures) ? 'met' : 'MISSED'}), ${ratio(figures.api, figures.tuned).toFixed(2)}x of the tuned one`,
      );
    }
    const docs = resolve(__dirname, '../../../docs/benchmarks.md');
    writeSection(docs, section(results, { ...database, loadBefore, loadAfter: loadavg()[0] }));
    console.log(`\nWrote the "API" section of ${docs}`);
  } finally {
    for (const server of started.reverse()) await server.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:api: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
