/**
 * CPU per request: `npm run bench:api:cpu`.
 *
 * Throughput on a small shared machine mixes every process's cost with scheduling noise; this
 * measures the cost itself. Each server (the api with its PostgreSQL bucket, the api with the
 * in-memory bucket, the minimal and the tuned baselines) takes GET /api/v1/records/{id}, then
 * POST /api/v1/models/{key}/records (a transaction), at a fixed rate well below saturation from an
 * autocannon child process, and the run reports the CPU time the server's process (this one) and
 * the benchmark's PostgreSQL processes (read from /proc, Linux only) spent per request. Ratios are against the
 * tuned baseline of the same round and route.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { startApi, type RunningServer } from './api-server';
import { startMinimalServer } from './minimal-server';
import { MODEL_KEY, sampleData, seed } from './seed';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../shared/throwaway-database';

const RATE = Number(process.env.BENCH_RATE ?? 400);
const SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const POOL_SIZE = 10;
const AUTOCANNON = resolve(__dirname, '../../../node_modules/.bin/autocannon');

/**
 * Which PostgreSQL processes this run may charge: every process of the embedded server (its
 * postmaster and the children it forks), or, on a shared DATABASE_URL server, the backends
 * connected to the benchmark's database. Other PostgreSQL servers on the machine are not ours.
 */
type OwnProcess = (pid: number, parentPid: number) => boolean;

async function ownPostgresProcesses(database: ThrowawayDatabase): Promise<OwnProcess> {
  const { postmasterPid } = database;
  if (postmasterPid !== null) return (pid, parentPid) => pid === postmasterPid || parentPid === postmasterPid;
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const backends = new Set(rows.map((row) => row.pid));
    return (pid) => backends.has(pid);
  } finally {
    await client.end();
  }
}

/** CPU milliseconds used so far by each of our PostgreSQL processes, by pid; null where /proc cannot tell. */
function postgresCpuByPid(own: OwnProcess): Map<string, number> | null {
  const byPid = new Map<string, number>();
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // the process ended while we looked
      }
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (!own(Number(pid), Number(fields[1]))) continue;
      byPid.set(pid, (Number(fields[11]) + Number(fields[12])) * 10); // utime + stime, USER_HZ = 100
    }
  } catch {
    return null;
  }
  return byPid;
}

/** What the processes alive at the end spent since `before` (pools close idle connections meanwhile). */
function postgresCpuSince(own: OwnProcess, before: Map<string, number> | null): number | null {
  const after = postgresCpuByPid(own);
  if (before === null || after === null) return null;
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}

interface Cost {
  requests: number;
  nodeMs: number;
  postgresMs: number | null;
}

function autocannon(args: string[]): Promise<{ requests: { total: number }; non2xx: number; errors: number }> {
  return new Promise((resolveRun, reject) => {
    execFile(AUTOCANNON, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => (error ? reject(error) : resolveRun(JSON.parse(stdout))));
  });
}

interface Route {
  name: string;
  path: (recordId: string) => string;
  /** Extra autocannon arguments: method, headers, body. */
  args: string[];
}

const ROUTES: Route[] = [
  { name: 'GET /api/v1/records/{id}', path: (recordId) => `/api/v1/records/${recordId}`, args: [] },
  {
    name: 'POST /api/v1/models/{key}/records',
    path: () => `/api/v1/models/${MODEL_KEY}/records`,
    args: ['-m', 'POST', '-H', 'Content-Type=application/json', '-b', JSON.stringify({ data: sampleData('Benchmark order') })],
  },
];

async function run(url: string, route: Route, token: string, seconds: number) {
  const result = await autocannon(['-c', '10', '-d', String(seconds), '-R', String(RATE), '-j', '-H', `Authorization=Bearer ${token}`, ...route.args, url]);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.total;
}

/** A short warm-up first, so the pool's connections are open and counted before the measured run. */
async function costOf(url: string, route: Route, token: string, database: ThrowawayDatabase): Promise<Cost> {
  await run(url, route, token, 2);
  const own = await ownPostgresProcesses(database);
  const postgresBefore = postgresCpuByPid(own);
  const nodeBefore = process.cpuUsage();
  const requests = await run(url, route, token, SECONDS);
  const node = process.cpuUsage(nodeBefore);
  const postgres = postgresCpuSince(own, postgresBefore);
  return { requests, nodeMs: (node.user + node.system) / 1000 / requests, postgresMs: postgres === null ? null : postgres / requests };
}

async function main(): Promise<void> {
  const database = await createThrowawayDatabase();
  const started: RunningServer[] = [];
  try {
    const api = await startApi(database.url, POOL_SIZE);
    started.push(api);
    const apiMemory = await startApi(database.url, POOL_SIZE, { PUBLIC_API_RATE_LIMIT_STORE: 'memory' });
    started.push(apiMemory);
    const seeded = await seed(api.runtime, 1);
    const minimal = await startMinimalServer(database.url, { poolSize: POOL_SIZE, prepared: false });
    started.push(minimal);
    const tuned = await startMinimalServer(database.url, { poolSize: POOL_SIZE, prepared: true });
    started.push(tuned);
    const servers: Array<[string, RunningServer]> = [
      ['tuned', tuned],
      ['minimal', minimal],
      ['api', api],
      ['api, memory bucket', apiMemory],
    ];
    console.log(`At ${RATE} req/s for ${SECONDS} s, ${ROUNDS} rounds; CPU ms per request (node = this process, pg = PostgreSQL):`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const route of ROUTES) {
        const costs = new Map<string, Cost>();
        for (const [name, server] of servers) costs.set(name, await costOf(`${server.url}${route.path(seeded.recordId)}`, route, seeded.tokens[0], database));
        const total = (cost: Cost) => cost.nodeMs + (cost.postgresMs ?? 0);
        const baseline = total(costs.get('tuned') ?? { requests: 0, nodeMs: Number.NaN, postgresMs: null });
        for (const [name, cost] of costs) {
          const pg = cost.postgresMs === null ? 'n/a' : cost.postgresMs.toFixed(3);
          console.log(
            `  round ${round} ${route.name.padEnd(34)} ${name.padEnd(18)} node ${cost.nodeMs.toFixed(3)}  pg ${pg}  total ${total(cost).toFixed(3)}  (${(total(cost) / baseline).toFixed(2)}x of tuned)`,
          );
        }
      }
    }
  } finally {
    for (const server of started.reverse()) await server.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:api:cpu: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
