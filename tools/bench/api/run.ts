/**
 * API benchmark: `npm run bench:api`.
 *
 * On one throwaway database (embedded PostgreSQL, or the server of DATABASE_URL), seeded through
 * the procedures, each server runs in a process of its own:
 *   - floor: node:http + pg, named statements, one statement for the key, one for the record;
 *   - floor + bucket: the same, with the contract's token-bucket upsert in the key statement;
 *   - api: its bundle as deployed (NODE_ENV=production, LOG_LEVEL=warn, the rate
 *     limit raised so it never denies but still writes its bucket on every request), with
 *     API_WORKERS=1 and, separately, 2;
 * all with the same pool size. wrk (one thread, 16 connections) drives
 *   GET  /api/v1/records/{id}
 *   POST /api/v1/models/{key}/records
 * with 16 keys used in turn, and the api once more with one key for every request. The api alone
 * also runs the conditional and idempotent forms, each against its own plain request in the same
 * round: GET asking for gzip or br, GET with an If-None-Match that misses, POST with a fresh
 * Idempotency-Key every time, and PATCH (256 records in turn) without and with the record's
 * current ETag in If-Match; targets: 0.95x of the plain GET for compression, 0.8x for the others. Servers are
 * interleaved within each round, so every ratio compares runs minutes apart at most. CPU per
 * request is read from /proc for the server's processes and PostgreSQL's.
 * Targets (one api process, against the floor with the bucket): GET >= 0.6x, POST >= 0.5x,
 * p99 at most 2x the floor's. Memory over a long run is `bench:api:memory`'s (memory.ts).
 * Prints the figures and writes the "API" section of docs/benchmarks.md.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { writeSection } from '../shared/markdown-section';
import { cpuSince, postgresCpu, treeCpu } from '../shared/process-cpu';
import { startPgBouncer, type PgBouncer } from '../shared/pgbouncer';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../shared/throwaway-database';
import { MODEL_KEY, sampleData, seedDatabase, type Seeded } from './seed';
import { apiEnvironment, startApiProcess, startFloorProcess, startOtherApiProcess, type ServerProcess } from './server-process';
import { wrk, type LoadFigures, type WrkRequest, type WrkSettings } from './wrk';

const LOAD: WrkSettings = { threads: 1, connections: 16, seconds: Number(process.env.BENCH_DURATION_SECONDS ?? 10) };
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
/**
 * Before the first round, every server serves every route it runs for this long, unmeasured: the
 * api's round 1 was otherwise its slowest in every quick run (0.38-0.46x against 0.52-0.65x in
 * rounds 2 and 3), its JIT, caches and heap not yet settled, which a 15 s warm-up before the
 * measurement alone did not fix. A server that has run for minutes is what production sees.
 */
const PREWARM_SECONDS = Number(process.env.BENCH_PREWARM_SECONDS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * For a quick look while working: BENCH_ROUTES (route names, exact, separated by semicolons, e.g.
 * "POST /api/v1/models/{key}/records") runs those routes, the floor with the bucket and the api with
 * one worker only, and writes nothing to docs/benchmarks.md.
 */
const ONLY_ROUTES = process.env.BENCH_ROUTES ? process.env.BENCH_ROUTES.split(';').map((name) => name.trim()) : undefined;
/**
 * To measure a regression against an earlier commit in the same rounds: BENCH_OTHER_APIS, entries
 * `label=path` separated by semicolons, each the api bundle of another build (`apps/api/dist/main.js`
 * of a worktree at that commit), run with one worker against the same database. Its schema is this
 * build's: an earlier bundle must run on the later schema. Printed, never written to the docs.
 */
const OTHER_APIS = (process.env.BENCH_OTHER_APIS ?? '')
  .split(';')
  .filter(Boolean)
  .map((entry) => {
    const [label, bundle] = entry.split('=');
    if (!label || !bundle) throw new Error(`BENCH_OTHER_APIS entries are label=path, got "${entry}"`);
    return { label: `api (${label.trim()})`, bundle: bundle.trim() };
  });
/**
 * BENCH_PGBOUNCER=1: two more contenders, the api with one worker behind PgBouncer in transaction
 * mode (DATABASE_POOLER=transaction) in front of the same database, pool as large as the api's; and
 * the same mode straight on PostgreSQL, to tell the mode's own cost from PgBouncer's hop.
 * Printed against the api straight on PostgreSQL, never written to the docs.
 */
const BEHIND_PGBOUNCER = process.env.BENCH_PGBOUNCER === '1';
const KEYS = 16;
const POOL_SIZE = 10;
/** Against the floor with the bucket (GET, POST), or the api's own plain request (the extras: ETags and retries, compression). */
const TARGETS = { get: 0.6, post: 0.5, extras: 0.8, compression: 0.95, p99: 2 } as const;

interface Measured extends LoadFigures {
  /** CPU ms per request: the server's processes, and PostgreSQL's. */
  serverCpuMs: number;
  postgresCpuMs: number;
}

type KeyShape = 'keys' | 'one key';

interface Contender {
  label: string;
  server: ServerProcess;
  keys: KeyShape;
}

interface Route {
  name: string;
  /** The ratio to the floor + bucket the api (1 worker) must reach; none for the api-only forms. */
  target?: number;
  /** The contenders that run it (all by default). */
  contenders?: readonly string[];
  /** What its ratio compares with in each round: the floor + bucket on the same route by default. */
  baseline?: { route: string; label: string };
  /** Built afresh before every wrk run, so it can start from the database's current state (ETags). */
  request(server: ServerProcess, tokens: readonly string[]): Promise<WrkRequest>;
}

const GET_RECORD = 'GET /api/v1/records/{id}';
const POST_RECORD = 'POST /api/v1/models/{key}/records';
const PATCH_RECORD = 'PATCH /api/v1/records/{id}';
const API = 'api, 1 worker';

/** The current ETag of each record, read through the api. */
async function currentTags(server: ServerProcess, ids: readonly string[], token: string): Promise<Record<string, string>> {
  const tags: Record<string, string> = {};
  for (const id of ids) {
    const response = await fetch(`${server.url}/api/v1/records/${id}`, { headers: { Authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    const tag = response.headers.get('etag');
    if (response.status !== 200 || !tag) throw new Error(`GET /api/v1/records/${id} answered ${response.status} without an ETag`);
    tags[id] = tag;
  }
  return tags;
}

function routes(seeded: Seeded): Route[] {
  const getRecord = (server: ServerProcess, tokens: readonly string[], headers?: Record<string, string>): WrkRequest => ({
    url: `${server.url}/api/v1/records/${seeded.recordId}`,
    method: 'GET',
    tokens,
    headers,
  });
  const postRecord = (server: ServerProcess, tokens: readonly string[]): WrkRequest => ({
    url: `${server.url}/api/v1/models/${MODEL_KEY}/records`,
    method: 'POST',
    tokens,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ data: sampleData('Benchmark order') }),
  });
  const patchRecords = async (server: ServerProcess, tokens: readonly string[], ifMatch: boolean): Promise<WrkRequest> => ({
    url: `${server.url}/api/v1/records/`,
    method: 'PATCH',
    tokens,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ data: { status: 'shipped', amount: 42 } }),
    records: {
      tags: ifMatch ? await currentTags(server, seeded.patchRecordIds, tokens[0]) : Object.fromEntries(seeded.patchRecordIds.map((id) => [id, ''])),
      ifMatch,
    },
  });
  const apiOnly = { contenders: [API] };
  return [
    { name: GET_RECORD, target: TARGETS.get, request: async (server, tokens) => getRecord(server, tokens) },
    { name: POST_RECORD, target: TARGETS.post, request: async (server, tokens) => postRecord(server, tokens) },
    {
      // The small GET (its answer is under 1 KiB, so it is never compressed): what asking costs.
      name: `${GET_RECORD}, Accept-Encoding: gzip, br`,
      ...apiOnly,
      target: TARGETS.compression,
      baseline: { route: GET_RECORD, label: API },
      request: async (server, tokens) => getRecord(server, tokens, { 'Accept-Encoding': 'gzip, br' }),
    },
    {
      name: `${GET_RECORD}, If-None-Match miss`,
      ...apiOnly,
      target: TARGETS.extras,
      baseline: { route: GET_RECORD, label: API },
      request: async (server, tokens) => getRecord(server, tokens, { 'If-None-Match': '"0-0"' }),
    },
    {
      name: `${POST_RECORD}, Idempotency-Key`,
      ...apiOnly,
      target: TARGETS.extras,
      baseline: { route: POST_RECORD, label: API },
      request: async (server, tokens) => ({ ...postRecord(server, tokens), uniqueHeader: 'Idempotency-Key' }),
    },
    { name: PATCH_RECORD, ...apiOnly, baseline: { route: PATCH_RECORD, label: API }, request: (server, tokens) => patchRecords(server, tokens, false) },
    {
      name: `${PATCH_RECORD}, If-Match`,
      ...apiOnly,
      target: TARGETS.extras,
      baseline: { route: PATCH_RECORD, label: API },
      request: (server, tokens) => patchRecords(server, tokens, true),
    },
  ];
}

/**
 * Every measurement starts from the same database state: the rows the previous ones wrote vacuumed
 * and analysed, and their dirty pages written out, so that no run pays for an autovacuum or a
 * checkpoint another run's writes set off (they landed on whichever server ran then: a p99 of
 * 170 ms in one round, 20-40 ms in the others).
 */
async function settle(database: ThrowawayDatabase): Promise<void> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

async function measure(request: () => Promise<WrkRequest>, server: ServerProcess, database: ThrowawayDatabase): Promise<Measured> {
  await settle(database);
  await wrk(await request(), { ...LOAD, seconds: WARMUP_SECONDS });
  const measured = await request();
  const serverBefore = treeCpu(server.pid);
  const postgresBefore = await postgresCpu(database);
  const figures = await wrk(measured, LOAD);
  const serverMs = cpuSince(treeCpu(server.pid), serverBefore);
  const postgresMs = cpuSince(await postgresCpu(database), postgresBefore);
  return { ...figures, serverCpuMs: serverMs / figures.requests, postgresCpuMs: postgresMs / figures.requests };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')} req/s`;
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Figures by route, then contender label, one entry per round. */
type Results = Map<string, Map<string, Measured[]>>;

function record(results: Results, route: string, label: string, figures: Measured): void {
  const byLabel = results.get(route) ?? new Map<string, Measured[]>();
  results.set(route, byLabel);
  byLabel.set(label, [...(byLabel.get(label) ?? []), figures]);
}

const FLOOR = 'floor + bucket';

interface Verdict {
  route: string;
  /** What the ratios compare with, in words. */
  against: string;
  ratios: number[];
  p99Ratios: number[];
  met: boolean;
}

/** Each round's ratio of `label`'s throughput on `route` to its baseline's. */
function ratiosToBaseline(results: Results, route: Route, runs: readonly Measured[]): number[] {
  const baseline = route.baseline ?? { route: route.name, label: FLOOR };
  const base = results.get(baseline.route)?.get(baseline.label) ?? [];
  return runs.map((figures, round) => figures.requestsPerSecond / base[round].requestsPerSecond);
}

function verdicts(results: Results, routeList: Route[]): Verdict[] {
  return routeList.flatMap((route) => {
    if (route.target === undefined) return [];
    const api = results.get(route.name)?.get(API) ?? [];
    const baseline = route.baseline ?? { route: route.name, label: FLOOR };
    const base = results.get(baseline.route)?.get(baseline.label) ?? [];
    const ratios = ratiosToBaseline(results, route, api);
    const p99Ratios = api.map((figures, round) => figures.p99 / base[round].p99);
    const against = route.baseline ? `the api's plain ${baseline.route}` : 'the floor with the bucket';
    return [{ route: route.name, against, ratios, p99Ratios, met: median(ratios) >= route.target && median(p99Ratios) <= TARGETS.p99 }];
  });
}

interface Context {
  database: ThrowawayDatabase;
  loadBefore: number;
  loadAfter: number;
}

function section(results: Results, routeList: Route[], context: Context): string {
  const date = new Date().toISOString().slice(0, 10);
  const lines: string[] = [];
  for (const route of routeList) {
    const byLabel = results.get(route.name) ?? new Map<string, Measured[]>();
    const baseline = route.baseline ?? { route: route.name, label: FLOOR };
    for (const [label, runs] of byLabel) {
      const isBaseline = baseline.route === route.name && baseline.label === label;
      const ratio = median(ratiosToBaseline(results, route, runs));
      lines.push(
        `| ${route.name} | ${label} | ${rate(median(runs.map((f) => f.requestsPerSecond)))} (${runs.map((f) => Math.round(f.requestsPerSecond)).join(', ')}) | ` +
          `${ms(median(runs.map((f) => f.p50)))} | ${ms(median(runs.map((f) => f.p99)))} | ` +
          `${median(runs.map((f) => f.serverCpuMs)).toFixed(3)} + ${median(runs.map((f) => f.postgresCpuMs)).toFixed(3)} | ` +
          `${isBaseline ? 'baseline' : `${ratio.toFixed(2)}x`} |`,
      );
    }
  }
  const verdictLines = verdicts(results, routeList).map(
    (verdict) =>
      `- ${verdict.route}: the api (1 worker) at ${verdict.ratios.map((r) => `${r.toFixed(2)}x`).join(', ')} of ${verdict.against} ` +
      `(target >= ${routeList.find((r) => r.name === verdict.route)?.target}x), p99 at ${verdict.p99Ratios.map((r) => `${r.toFixed(2)}x`).join(', ')} ` +
      `of its (target <= ${TARGETS.p99}x): ${verdict.met ? 'met' : 'MISSED'}.`,
  );
  return [
    '## API',
    '',
    `Run by \`npm run bench:api\` on ${date}; ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, PostgreSQL ${context.database.postgresVersion} (${context.database.server}); ` +
      `1-minute load average ${context.loadBefore.toFixed(1)} before and ${context.loadAfter.toFixed(1)} after.`,
    '',
    '| Route | Server | Throughput, median (each round) | p50 | p99 | CPU ms per request: server + PostgreSQL | Ratio to the baseline |',
    '|---|---|---|---|---|---|---|',
    ...lines,
    '',
    ...verdictLines,
    `- wrk, ${LOAD.threads} thread, ${LOAD.connections} connections, ${LOAD.seconds} s per measurement after a ${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds, ` +
      `after every server first served every route for ${PREWARM_SECONDS} s, unmeasured; ` +
      `every server in its own process, in turn within each round, on the same database with ${POOL_SIZE} pooled connections. ` +
      `"keys": ${KEYS} keys of the organization's owner (full access) used in turn; "one key": every request on the same key, so every take waits on one bucket row.`,
    '- Floor: `node:http` + `pg`, named statements; one statement authenticates (SHA-256 key lookup joined to the owner, membership, grants and role ' +
      'permissions), one more reads the record (organization, live, row-level access) or inserts it (model resolved by key inside the INSERT). ' +
      'No field validation, no events. "+ bucket": the key statement also runs the contract\'s token-bucket upsert. Bundled by esbuild as the api is.',
    '- api: `apps/api/dist/main.js` (the bundle `npm start` and the image run) with NODE_ENV=production and LOG_LEVEL=warn; every rule on: live key and permissions, the shared bucket ' +
      '(rate raised so it never denies), input validation, field validation, the record event and its outbox row: the organization ' +
      'has a webhook endpoint subscribed to `data-models.*`, so every POST queues a delivery in its transaction (no worker runs).',
    '- Baseline: the floor + bucket on the same route; for the api-only forms (Accept-Encoding, If-None-Match, Idempotency-Key, If-Match), the api\'s own plain ' +
      'request of that method in the same round. PATCH writes 256 records in turn; with If-Match each carries the ETag of its previous answer.',
    '- Before each measurement (its warm-up included) the database is vacuumed, analysed and checkpointed, so no run pays for what earlier runs wrote.',
    '- CPU: utime + stime of the server\'s processes (workers included) and of the PostgreSQL processes, from /proc, divided by the requests of the measured run.',
  ].join('\n');
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  console.log('Preparing and seeding a throwaway database...');
  const database = await createThrowawayDatabase();
  const started: ServerProcess[] = [];
  let pgbouncer: PgBouncer | undefined;
  const startServer = async (promise: Promise<ServerProcess>) => {
    const server = await promise;
    started.push(server);
    return server;
  };
  try {
    const seeded = await seedDatabase(database.url, KEYS);
    // The api's pool is 10 connections, as POOL_SIZE gives the floors.
    const environment = apiEnvironment(database.url);
    const floor = await startServer(startFloorProcess('floor', database.url, { poolSize: POOL_SIZE, bucket: false }));
    const floorBucket = await startServer(startFloorProcess(FLOOR, database.url, { poolSize: POOL_SIZE, bucket: true }));
    const api = await startServer(startApiProcess(API, { ...environment, API_WORKERS: '1' }, (process.env.BENCH_API_NODE_OPTIONS ?? '').split(' ').filter(Boolean)));
    const apiTwo = await startServer(startApiProcess('api, 2 workers', { ...environment, API_WORKERS: '2' }));
    const others: Contender[] = [];
    if (BEHIND_PGBOUNCER) {
      pgbouncer = await startPgBouncer(database.url, POOL_SIZE);
      const pooled = { ...apiEnvironment(pgbouncer.url), DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: database.url, API_WORKERS: '1' };
      others.push({ label: 'api (behind PgBouncer)', server: await startServer(startApiProcess('api (behind PgBouncer)', pooled)), keys: 'keys' });
      // The pooler mode's own cost (unnamed statements, the limit per transaction) without PgBouncer's hop.
      const unnamed = { ...environment, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: database.url, API_WORKERS: '1' };
      others.push({ label: 'api (pooler mode, no PgBouncer)', server: await startServer(startApiProcess('api (pooler mode, no PgBouncer)', unnamed)), keys: 'keys' });
    }
    for (const other of OTHER_APIS) {
      others.push({ label: other.label, server: await startServer(startOtherApiProcess(other.label, other.bundle, { ...environment, API_WORKERS: '1' })), keys: 'keys' });
    }
    const contenders: Contender[] = [
      { label: 'floor', server: floor, keys: 'keys' },
      { label: FLOOR, server: floorBucket, keys: 'keys' },
      { label: API, server: api, keys: 'keys' },
      { label: 'api, 1 worker, one key', server: api, keys: 'one key' },
      { label: 'api, 2 workers', server: apiTwo, keys: 'keys' },
      ...others,
    ];
    const routeList = routes(seeded).filter((route) => !ONLY_ROUTES || ONLY_ROUTES.includes(route.name));
    if (routeList.length === 0) throw new Error(`BENCH_ROUTES names no route; the routes are: ${routes(seeded).map((route) => route.name).join(', ')}`);
    console.log(`Measuring: wrk -t${LOAD.threads} -c${LOAD.connections}, ${LOAD.seconds} s after ${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds`);
    const runningOn = (route: Route) =>
      contenders.filter(
        (contender) => (!route.contenders || route.contenders.includes(contender.label)) && (!ONLY_ROUTES || contender.label === FLOOR || contender.label === API || others.includes(contender)),
      );
    if (PREWARM_SECONDS > 0) {
      console.log(`Warming every server on every route for ${PREWARM_SECONDS} s (not measured)`);
      for (const route of routeList) {
        for (const server of new Set(runningOn(route).map((contender) => contender.server))) {
          await wrk(await route.request(server, seeded.tokens), { ...LOAD, seconds: PREWARM_SECONDS });
        }
      }
    }
    const results: Results = new Map();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const route of routeList) {
        const running = runningOn(route);
        for (const { label, server, keys } of running) {
          const tokens = keys === 'keys' ? seeded.tokens : seeded.tokens.slice(0, 1);
          const figures = await measure(() => route.request(server, tokens), server, database);
          record(results, route.name, label, figures);
          console.log(
            `  round ${round} ${route.name.padEnd(34)} ${label.padEnd(24)} ${rate(figures.requestsPerSecond).padStart(12)}  ` +
              `p50 ${ms(figures.p50)}  p99 ${ms(figures.p99)}  cpu ${figures.serverCpuMs.toFixed(3)} + ${figures.postgresCpuMs.toFixed(3)} ms`,
          );
        }
      }
    }
    console.log('');
    for (const verdict of verdicts(results, routeList)) {
      console.log(`${verdict.route}: ${verdict.ratios.map((r) => `${r.toFixed(2)}x`).join(', ')} of ${verdict.against}; p99 ${verdict.p99Ratios.map((r) => `${r.toFixed(2)}x`).join(', ')}: ${verdict.met ? 'met' : 'MISSED'}`);
    }
    for (const route of routeList) {
      const floorRuns = results.get(route.name)?.get(FLOOR) ?? [];
      for (const label of [API, ...others.map((other) => other.label)]) {
        const runs = results.get(route.name)?.get(label) ?? [];
        if (others.length === 0 || runs.length === 0 || floorRuns.length === 0) continue;
        const ratios = runs.map((figures, round) => figures.requestsPerSecond / floorRuns[round].requestsPerSecond);
        const postgres = runs.map((figures) => figures.postgresCpuMs.toFixed(3));
        console.log(`  ${route.name} ${label}: ${ratios.map((r) => `${r.toFixed(2)}x`).join(', ')} of ${FLOOR}; PostgreSQL CPU ${postgres.join(', ')} ms`);
      }
    }
    if (ONLY_ROUTES || others.length > 0) return;
    const docs = resolve(__dirname, '../../../docs/benchmarks.md');
    writeSection(docs, section(results, routeList, { database, loadBefore, loadAfter: loadavg()[0] }));
    console.log(`\nWrote the "API" section of ${docs}`);
  } finally {
    for (const server of started.reverse()) await server.stop();
    await pgbouncer?.stop();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:api: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
