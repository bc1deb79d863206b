/**
 * The api's memory over a long run: `npm run bench:api:memory`.
 *
 * Seeds a throwaway database as bench:api does and starts the api (its bundle, production
 * settings, one worker) with a probe preloaded (memory-probe.ts). After an unmeasured warm-up,
 * every minute serves 30 s of GET /api/v1/records/{id} then 30 s of POST /api/v1/models/{key}/records
 * (wrk, one thread, 16 connections, 16 keys in turn), then reads the api's RSS and asks the probe
 * for the heap that survives a full collection. BENCH_SOAK_SECONDS (default 600) sets the length.
 *
 * The verdict is on that live heap, not on RSS: V8 and the allocator keep pages they no longer
 * need, so RSS rises for a while without a leak, while a leak shows as live heap that grows
 * minute after minute. Writes the "API: memory over a long run" section of docs/benchmarks.md.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildBundle } from '@mrp/platform/deploy';
import { writeSection } from '../shared/markdown-section';
import { treeRssBytes } from '../shared/process-cpu';
import { createThrowawayDatabase } from '../shared/throwaway-database';
import { MODEL_KEY, sampleData, seedDatabase } from './seed';
import { apiEnvironment, startApiProcess, type ServerProcess } from './server-process';
import { wrk, type WrkRequest } from './wrk';

const ROOT = resolve(__dirname, '../../..');
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 60);
const MINUTE_SECONDS = 60;
const LOAD = { threads: 1, connections: 16 } as const;
/**
 * Flat: the live heap at the end within this much of the first minute's. Ten minutes here are
 * about 1.4 million requests, so a leak of 2 bytes per request would cross it; from one minute to
 * the next, the live heap moves by a fraction of a MiB.
 */
const FLAT_MARGIN_BYTES = 2 * 2 ** 20;

interface Probe {
  at: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

interface Minute {
  minute: number;
  requests: number;
  getPerSecond: number;
  postPerSecond: number;
  /** The api's RSS at the end of the minute, before the probe's collection. */
  rss: number;
  probe: Probe;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 2 ** 10).toFixed(0)} KiB`;

/** Signals the probe and waits for the line it appends. */
async function probe(api: ServerProcess, file: string): Promise<Probe> {
  const linesBefore = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
  process.kill(api.pid, 'SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    if (lines.length > linesBefore) return JSON.parse(lines[lines.length - 1]) as Probe;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  throw new Error('the api did not answer the memory probe within 10 s');
}

/** Least-squares slope of `values` over their index: bytes per minute. */
function slope(values: readonly number[]): number {
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, value) => sum + value, 0) / n;
  let covariance = 0;
  let variance = 0;
  values.forEach((value, x) => {
    covariance += (x - meanX) * (value - meanY);
    variance += (x - meanX) ** 2;
  });
  return variance === 0 ? 0 : covariance / variance;
}

async function main(): Promise<void> {
  const probeBundle = resolve(ROOT, '.bench', 'memory-probe.js');
  const probeFile = resolve(ROOT, '.bench', 'memory-probe.jsonl');
  mkdirSync(resolve(ROOT, '.bench'), { recursive: true });
  buildBundle(resolve(__dirname, 'memory-probe.ts'), probeBundle);
  rmSync(probeFile, { force: true });
  console.log('Preparing and seeding a throwaway database...');
  const database = await createThrowawayDatabase();
  let api: ServerProcess | undefined;
  try {
    const seeded = await seedDatabase(database.url, 16);
    api = await startApiProcess('api', { ...apiEnvironment(database.url), API_WORKERS: '1', BENCH_MEMORY_PROBE_FILE: probeFile }, [
      '--expose-gc',
      '--require',
      probeBundle,
    ]);
    const get: WrkRequest = { url: `${api.url}/api/v1/records/${seeded.recordId}`, method: 'GET', tokens: seeded.tokens };
    const post: WrkRequest = {
      url: `${api.url}/api/v1/models/${MODEL_KEY}/records`,
      method: 'POST',
      tokens: seeded.tokens,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: sampleData('Soaked order') }),
    };
    const started = await probe(api, probeFile);
    console.log(`Started: RSS ${mib(started.rss)}, live heap ${mib(started.heapUsed)}. Warming up for ${WARMUP_SECONDS} s...`);
    await wrk(get, { ...LOAD, seconds: WARMUP_SECONDS / 2 });
    await wrk(post, { ...LOAD, seconds: WARMUP_SECONDS / 2 });
    const warm = await probe(api, probeFile);
    const minutes: Minute[] = [];
    let requests = 0;
    for (let minute = 1; minute <= Math.max(1, Math.round(SOAK_SECONDS / MINUTE_SECONDS)); minute++) {
      const gets = await wrk(get, { ...LOAD, seconds: MINUTE_SECONDS / 2 });
      const posts = await wrk(post, { ...LOAD, seconds: MINUTE_SECONDS / 2 });
      requests += gets.requests + posts.requests;
      const rss = treeRssBytes(api.pid);
      const measured = { minute, requests, getPerSecond: gets.requestsPerSecond, postPerSecond: posts.requestsPerSecond, rss, probe: await probe(api, probeFile) };
      minutes.push(measured);
      console.log(
        `  minute ${String(minute).padStart(2)}: ${requests.toLocaleString('en-US').padStart(10)} requests, RSS ${mib(rss)}, ` +
          `live heap ${mib(measured.probe.heapUsed)} of ${mib(measured.probe.heapTotal)}, external ${mib(measured.probe.external)}`,
      );
    }
    const first = minutes[0];
    const last = minutes[minutes.length - 1];
    const growth = last.probe.heapUsed - first.probe.heapUsed;
    const perMinute = slope(minutes.map((entry) => entry.probe.heapUsed));
    const flat = growth <= FLAT_MARGIN_BYTES;
    console.log(`\nLive heap ${mib(first.probe.heapUsed)} -> ${mib(last.probe.heapUsed)} (${growth >= 0 ? '+' : ''}${mib(growth)}), ${kib(perMinute)} per minute: ${flat ? 'flat' : 'GROWING'}`);
    const date = new Date().toISOString().slice(0, 10);
    const section = [
      '## API: memory over a long run',
      '',
      `Run by \`npm run bench:api:memory\` on ${date}: the api's bundle, one worker, NODE_ENV=production, after a ${WARMUP_SECONDS} s warm-up; ` +
        'each minute 30 s of GET /api/v1/records/{id} then 30 s of POST /api/v1/models/{key}/records (wrk, 1 thread, 16 connections, 16 keys), ' +
        'then its RSS, and the heap that survives a full collection (two `gc()` calls, by a probe preloaded with `--expose-gc`).',
      '',
      '| Minute | Requests so far | GET req/s | POST req/s | RSS | Live heap (of heap total) | External (of which array buffers) |',
      '|---|---|---|---|---|---|---|',
      `| start | 0 | - | - | ${mib(started.rss)} | ${mib(started.heapUsed)} (${mib(started.heapTotal)}) | ${mib(started.external)} (${mib(started.arrayBuffers)}) |`,
      `| warm | - | - | - | ${mib(warm.rss)} | ${mib(warm.heapUsed)} (${mib(warm.heapTotal)}) | ${mib(warm.external)} (${mib(warm.arrayBuffers)}) |`,
      ...minutes.map(
        (entry) =>
          `| ${entry.minute} | ${entry.requests.toLocaleString('en-US')} | ${Math.round(entry.getPerSecond)} | ${Math.round(entry.postPerSecond)} | ${mib(entry.rss)} | ` +
          `${mib(entry.probe.heapUsed)} (${mib(entry.probe.heapTotal)}) | ${mib(entry.probe.external)} (${mib(entry.probe.arrayBuffers)}) |`,
      ),
      '',
      `- Live heap from minute 1 to minute ${last.minute}: ${mib(first.probe.heapUsed)} to ${mib(last.probe.heapUsed)}, ` +
        `a least-squares trend of ${kib(perMinute)} per minute over ${last.requests.toLocaleString('en-US')} requests: ` +
        `${flat ? 'flat' : 'GROWING'} (the bar: within ${mib(FLAT_MARGIN_BYTES)}).`,
      `- RSS from minute 1 to minute ${last.minute}: ${mib(first.rss)} to ${mib(last.rss)}. It is read before each minute's collection, a minute after ` +
        'the previous one; a process never made to collect lets V8 grow its heap further before it does, so its RSS runs higher without holding more.',
    ].join('\n');
    const docs = resolve(ROOT, 'docs/benchmarks.md');
    writeSection(docs, section);
    console.log(`Wrote the "API: memory over a long run" section of ${docs}`);
  } finally {
    await api?.stop();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:api:memory: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
