/**
 * MCP benchmark: `npm run bench:mcp`.
 *
 * One record read two ways against the same api process (its bundle as deployed, one worker), in
 * the same rounds: `tools/call get_record` through POST /mcp (a stateless request: no initialize,
 * as a client that already has the tool list sends it) and GET /api/v1/records/{id}, both with 16
 * keys in turn. wrk (one thread, 16 connections) drives each; the rounds interleave the two, so
 * every ratio compares runs seconds apart. Target: /mcp at least 0.7x the requests per second of
 * /api/v1. Prints the figures and, for a run of the default size, writes the "MCP" section of
 * docs/benchmarks.md.
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { writeSection } from '../shared/markdown-section';
import { cpuSince, treeCpu } from '../shared/process-cpu';
import { createThrowawayDatabase } from '../shared/throwaway-database';
import { seedDatabase } from '../api/seed';
import { apiEnvironment, startApiProcess } from '../api/server-process';
import { wrk, type LoadFigures, type WrkRequest, type WrkSettings } from '../api/wrk';

const DEFAULTS = { seconds: 10, warmup: 5, rounds: 5 };
const LOAD: WrkSettings = { threads: 1, connections: 16, seconds: Number(process.env.BENCH_DURATION_SECONDS ?? DEFAULTS.seconds) };
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? DEFAULTS.warmup);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? DEFAULTS.rounds);
const DEFAULT_SIZE = LOAD.seconds === DEFAULTS.seconds && WARMUP_SECONDS === DEFAULTS.warmup && ROUNDS === DEFAULTS.rounds;
const KEYS = 16;
const TARGET = 0.7;

/** What the profiles showed, and what changed; kept with the figures it explains. */
const WHERE_THE_TIME_GOES = [
  'Where the difference went (CPU profiles of the api under each route, per request): with the SDK\'s web-standard ' +
    'Streamable HTTP transport, /mcp measured 0.57x of /api/v1 on a quiet host (0.50x by CPU). More than a third of a ' +
    "tool call's CPU was that transport's answer: a web `Response` whose body is a stream (undici's `extractBody`, " +
    '`ReadableStream`, `makeTransferable`, an `AbortSignal`), read back as text for Koa. The transport is now our own ' +
    '(`apps/api/src/mcp/json-answer-transport.ts`, the SDK\'s public `Transport` interface, decision 161): the same ' +
    "checks (Accept 406, JSON-RPC shape 400, MCP-Protocol-Version 400, 202 for a notification) and the SDK's `Server` " +
    "for the protocol itself; the server's answer goes to Koa as the message it is. The earlier trial of a bare " +
    'transport (about 0.6x) was measured at a load average of 15 and did not show this.',
  'What remains above /api/v1: the SDK\'s zod parses of the message and of the tool result, its request bookkeeping, ' +
    'the POST body, and the answer carrying the record twice (structured, and as JSON text as the protocol advises).',
].join('\n\n');

const MCP_ROUTE = 'POST /mcp tools/call get_record';
const REST_ROUTE = 'GET /api/v1/records/{id}';

function toolCall(recordId: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_record', arguments: { id: recordId } } });
}

/** One call before measuring: wrk counts a 200 as a success, and a tool error is a 200 too. */
async function checkToolAnswers(url: string, token: string, body: string): Promise<void> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body,
  });
  const answer = (await response.json()) as { result?: { isError?: boolean; structuredContent?: { id?: string } } };
  if (response.status !== 200 || !answer.result || answer.result.isError || !answer.result.structuredContent?.id) {
    throw new Error(`get_record through /mcp did not answer the record: ${response.status} ${JSON.stringify(answer)}`);
  }
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fixed = (value: number, digits = 0) => value.toFixed(digits);

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const database = await createThrowawayDatabase();
  try {
    const seeded = await seedDatabase(database.url, KEYS);
    const api = await startApiProcess('api', { ...apiEnvironment(database.url), API_WORKERS: '1' });
    try {
      const body = toolCall(seeded.recordId);
      await checkToolAnswers(api.url, seeded.tokens[0], body);
      const requests: Record<string, WrkRequest> = {
        [MCP_ROUTE]: {
          url: `${api.url}/mcp`,
          method: 'POST',
          tokens: seeded.tokens,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body,
        },
        [REST_ROUTE]: { url: `${api.url}/api/v1/records/${seeded.recordId}`, method: 'GET', tokens: seeded.tokens },
      };
      for (const request of Object.values(requests)) await wrk(request, { ...LOAD, seconds: WARMUP_SECONDS });
      const rounds: Array<Record<string, LoadFigures>> = [];
      // The api's own CPU time per request: steadier than requests per second on a machine shared with other work.
      const cpuPerRequest: Record<string, number[]> = { [MCP_ROUTE]: [], [REST_ROUTE]: [] };
      for (let round = 1; round <= ROUNDS; round++) {
        const figures: Record<string, LoadFigures> = {};
        // Alternate which goes first, so neither always meets the other's leftovers.
        const order = round % 2 === 1 ? [REST_ROUTE, MCP_ROUTE] : [MCP_ROUTE, REST_ROUTE];
        for (const name of order) {
          const before = treeCpu(api.pid);
          figures[name] = await wrk(requests[name], LOAD);
          cpuPerRequest[name].push(cpuSince(treeCpu(api.pid), before) / figures[name].requests);
        }
        rounds.push(figures);
        const ratio = figures[MCP_ROUTE].requestsPerSecond / figures[REST_ROUTE].requestsPerSecond;
        console.log(
          `round ${round}: ${REST_ROUTE} ${fixed(figures[REST_ROUTE].requestsPerSecond)} req/s, ` +
            `${MCP_ROUTE} ${fixed(figures[MCP_ROUTE].requestsPerSecond)} req/s, ratio ${fixed(ratio, 2)}x`,
        );
      }
      const ratios = rounds.map((figures) => figures[MCP_ROUTE].requestsPerSecond / figures[REST_ROUTE].requestsPerSecond);
      const ratio = median(ratios);
      const row = (name: string) =>
        `| ${name} | ${fixed(median(rounds.map((figures) => figures[name].requestsPerSecond)))} | ` +
        `${fixed(median(rounds.map((figures) => figures[name].p50)), 2)} | ${fixed(median(rounds.map((figures) => figures[name].p99)), 2)} | ` +
        `${fixed(median(cpuPerRequest[name]), 3)} |`;
      const cpuRatios = cpuPerRequest[REST_ROUTE].map((rest, index) => rest / cpuPerRequest[MCP_ROUTE][index]);
      const verdict = ratio >= TARGET ? 'met' : 'NOT met';
      const section = [
        '## MCP',
        '',
        `\`npm run bench:mcp\` (tools/bench/mcp/run.ts): one record read through \`/mcp\` (\`tools/call get_record\`, stateless) and through`,
        `\`/api/v1\`, one api process (its bundle, NODE_ENV=production), wrk with 1 thread and 16 connections over 16 keys, ${ROUNDS} rounds of`,
        `${LOAD.seconds} s each, interleaved; medians. ${cpus().length} cores, ${database.server} ${database.postgresVersion}.`,
        '',
        '| Route | req/s | p50 ms | p99 ms | api CPU ms/request |',
        '|---|---|---|---|---|',
        row(REST_ROUTE),
        row(MCP_ROUTE),
        '',
        `Ratio /mcp to /api/v1: ${fixed(ratio, 2)}x (rounds: ${ratios.map((value) => fixed(value, 2)).join(', ')}); target ${TARGET}x, ${verdict}. ` +
          `By the api's CPU time per request: ${fixed(median(cpuRatios), 2)}x (rounds: ${cpuRatios.map((value) => fixed(value, 2)).join(', ')}). ` +
          `Load average (1 min) ${fixed(loadBefore, 2)} before the run, ${fixed(loadavg()[0], 2)} after it.`,
        '',
        WHERE_THE_TIME_GOES,
        '',
      ].join('\n');
      console.log(`\n${section}`);
      if (DEFAULT_SIZE) writeSection(resolve(__dirname, '../../../docs/benchmarks.md'), section);
    } finally {
      await api.stop();
    }
  } finally {
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
