/**
 * Export and expand benchmark: `npx tsx tools/bench/records/export.ts` (the second part of
 * `npm run bench:records`).
 *
 * Seeds BENCH_EXPORT_RECORDS (default 1,000,000) records of one model (title, SELECT, NUMBER,
 * EMAIL, TEXT and a RELATION to a model of 1,000 accounts) into a throwaway database, starts the
 * api as deployed (its bundle, in its own process), then measures, each against a baseline taken
 * in the same run:
 *   - GET /api/v1/models/orders/records/export?format=csv of every record, read to the end over
 *     HTTP, vs `COPY (SELECT ...) TO STDOUT (FORMAT csv)` of the same rows and columns through `pg`,
 *     in alternating runs (target: the export at >= 0.5x COPY's rate), and the api process's RSS
 *     during the export, sampled every 50 ms (target: growth < 50 MiB);
 *   - records.list, a page of 100 with `expand` of the relation vs the same page without it, in
 *     alternating samples (target: p50 < 1.3x);
 * and writes the figures to the "Records: export and expand" section of docs/benchmarks.md (only
 * a run of the default size).
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { resolveSessionPrincipal } from '@mrp/authz';
import { invokeProcedure, loadConfig, type Principal } from '@mrp/platform';
import { createRuntime } from '@mrp/runtime';
import { seedDatabase, MODEL_KEY } from '../api/seed';
import { apiEnvironment, BENCH_ADMIN, startApiProcess, type ServerProcess } from '../api/server-process';
import { writeSection } from '../shared/markdown-section';
import { treeRssBytes } from '../shared/process-cpu';
import { percentile } from '../shared/samples';
import { createThrowawayDatabase } from '../shared/throwaway-database';

const RECORDS = Number(process.env.BENCH_EXPORT_RECORDS ?? 1_000_000);
const ACCOUNTS = 1_000;
/** Exports and COPYs, alternating; the host's speed drifts between runs, so each export is compared with the COPY just before it. */
const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 5);
const PAGE = 100;
const EXPAND_SAMPLES = 200;
const MIB = 1024 * 1024;

interface Timed {
  ms: number;
  bytes: number;
  lines: number;
}

/** Reads a byte stream to its end, counting bytes and line ends. */
async function drain(chunks: AsyncIterable<Uint8Array>, started: number): Promise<Timed> {
  let bytes = 0;
  let lines = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
  }
  return { ms: performance.now() - started, bytes, lines };
}

/** Times a page without and with `expand`, alternately, EXPAND_SAMPLES of each after 20 unmeasured pairs. */
async function sampleAlternately(page: (expand: boolean) => Promise<unknown>): Promise<{ plain: number[]; expanded: number[] }> {
  for (let index = 0; index < 20; index++) {
    await page(false);
    await page(true);
  }
  const plain: number[] = [];
  const expanded: number[] = [];
  for (let index = 0; index < EXPAND_SAMPLES; index++) {
    for (const [expand, samples] of [[false, plain], [true, expanded]] as const) {
      const begun = performance.now();
      await page(expand);
      samples.push(performance.now() - begun);
    }
  }
  return { plain, expanded };
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadavg();
  const database = await createThrowawayDatabase();
  const client = new Client({ connectionString: database.url });
  let api: ServerProcess | undefined;
  try {
    await client.connect();
    const seeded = await seedDatabase(database.url, 1);
    const token = seeded.tokens[0];

    // A relation to expand, and the records, straight into the table (generate_series is the fastest way to fill it).
    const config = loadConfig({ ...apiEnvironment(database.url), LOG_LEVEL: 'silent' }, { requireSessionAuth: true });
    const runtime = await createRuntime(config, { name: 'bench-export', poolSize: 2 });
    const owner: Principal = await resolveSessionPrincipal(runtime.orm.em.fork(), BENCH_ADMIN, {
      organizationId: seeded.organizationId,
      platformAdminEmails: runtime.config.platformAdminEmails,
    });
    const call = <T>(name: string, input: unknown) =>
      invokeProcedure<T>(runtime.procedures.require(name), input, { em: runtime.orm.em.fork(), principal: owner, correlationId: 'bench' }, runtime.invocationDeps);
    await call('dataModels.create', { key: 'accounts', name: 'Accounts' });
    await call('dataModels.fields.create', { model: MODEL_KEY, key: 'account', name: 'Account', type: 'RELATION', config: { targetModel: 'accounts' } });
    const modelId = async (key: string) => (await client.query<{ id: string }>('SELECT id FROM data_models WHERE key = $1', [key])).rows[0].id;
    const [ordersId, accountsId] = [await modelId(MODEL_KEY), await modelId('accounts')];
    await client.query(
      `INSERT INTO records (id, organization_id, model_id, title, data, created_by, updated_by)
       SELECT gen_random_uuid(), $1, $2, 'Account ' || g, jsonb_build_object('title', 'Account ' || g), 'seed', 'seed' FROM generate_series(1, $3::int) g`,
      [seeded.organizationId, accountsId, ACCOUNTS],
    );
    console.log(`Seeding ${RECORDS.toLocaleString('en')} records (${database.server} ${database.postgresVersion})...`);
    const seedStarted = performance.now();
    for (let from = 1; from <= RECORDS; from += 100_000) {
      await client.query(
        `WITH accounts AS (SELECT array_agg(id::text ORDER BY id) AS ids FROM records WHERE model_id = $2)
         INSERT INTO records (id, organization_id, model_id, title, data, created_at, updated_at, created_by, updated_by)
         SELECT gen_random_uuid(), $1, $3, 'Order ' || g,
           jsonb_build_object(
             'title', 'Order ' || g,
             'status', (ARRAY['open', 'shipped'])[1 + g % 2],
             'amount', ((g::bigint * 7919) % 100000) / 100.0,
             'customer', 'buyer' || (g % 1000) || '@example.com',
             'notes', CASE WHEN g % 10 = 0 THEN '=SUM(A1:A' || g || ')' ELSE 'Deliver "before" noon, gate ' || g END,
             'account', accounts.ids[1 + g % ${ACCOUNTS}]),
           ts, ts, 'seed', 'seed'
         FROM accounts, generate_series($4::int, $5::int) g,
           LATERAL (SELECT date_trunc('milliseconds', timestamptz '2030-01-01' + g * interval '1 second') AS ts) t`,
        [seeded.organizationId, accountsId, ordersId, from, Math.min(RECORDS, from + 99_999)],
      );
    }
    await client.query('VACUUM ANALYZE records');
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const [{ count: exportedRows }] = (
      await client.query<{ count: string }>('SELECT count(*) FROM records WHERE model_id = $1 AND deleted_at IS NULL', [ordersId])
    ).rows;

    // BENCH_EXPORT_NODE_OPTIONS (e.g. --max-old-space-size=96): the api's own Node options, to tell garbage not yet collected from memory held.
    api = await startApiProcess('api', apiEnvironment(database.url), (process.env.BENCH_EXPORT_NODE_OPTIONS ?? '').split(' ').filter(Boolean));
    const exportCsv = async (query = ''): Promise<Timed & { rssBefore: number; rssPeak: number }> => {
      const pid = (api as ServerProcess).pid;
      const rssBefore = treeRssBytes(pid);
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, treeRssBytes(pid))), 50);
      try {
        const begun = performance.now();
        const response = await fetch(`${(api as ServerProcess).url}/api/v1/models/${MODEL_KEY}/records/export?format=csv${query}`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}: ${await response.text()}`);
        const timed = await drain(response.body, begun);
        rssPeak = Math.max(rssPeak, treeRssBytes(pid));
        return { ...timed, rssBefore, rssPeak };
      } finally {
        clearInterval(sampler);
      }
    };
    // The same rows, columns and order as the export, each value as text, with COPY's own CSV writer.
    const copyCsv = async (): Promise<Timed> => {
      // COPY takes no bind parameters: the ids travel as settings, set with bound values.
      await client.query("SELECT set_config('bench.organization', $1, false), set_config('bench.model', $2, false)", [seeded.organizationId, ordersId]);
      const begun = performance.now();
      const stream = client.query(
        copyTo(`COPY (
          SELECT r.id, r.data->>'title', r.data->>'status', r.data->>'amount', r.data->>'customer', r.data->>'notes', r.data->>'account',
            to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          FROM records r
          WHERE r.organization_id = current_setting('bench.organization')::uuid AND r.model_id = current_setting('bench.model')::uuid AND r.deleted_at IS NULL
          ORDER BY r.created_at DESC, r.id DESC
        ) TO STDOUT (FORMAT csv, HEADER)`),
      );
      return drain(stream, begun);
    };

    console.log('Exporting...');
    // Warm-up: the code paths and the table's pages, for both.
    await exportCsv(`&q=${encodeURIComponent('Order 99999')}`);
    await copyCsv();
    const exports: Array<Timed & { rssBefore: number; rssPeak: number }> = [];
    const copies: Timed[] = [];
    for (let run = 0; run < RUNS; run++) {
      copies.push(await copyCsv());
      exports.push(await exportCsv());
    }
    for (const run of [...exports, ...copies]) if (run.lines !== Number(exportedRows) + 1) throw new Error(`the export wrote ${run.lines} lines for ${exportedRows} records`);

    console.log('Expanding...');
    const page = (expand: boolean) => call('records.list', { model: MODEL_KEY, limit: PAGE, ...(expand ? { expand: 'account' } : {}) });
    const { plain, expanded } = await sampleAlternately(page);
    await runtime.close();
    // The same pages as a client gets them: the api as deployed, over HTTP, uncompressed (so the
    // page's compression does not pad the time both answers take).
    const pageOverHttp = async (expand: boolean) => {
      const response = await fetch(`${(api as ServerProcess).url}/api/v1/models/${MODEL_KEY}/records?limit=${PAGE}${expand ? '&expand=account' : ''}`, {
        headers: { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'identity' },
      });
      const body = await response.text();
      if (response.status !== 200) throw new Error(`the list answered ${response.status}: ${body}`);
    };
    const { plain: plainHttp, expanded: expandedHttp } = await sampleAlternately(pageOverHttp);

    const median = <T>(runs: T[], value: (run: T) => number) => percentile(runs.map(value), 0.5);
    const exportRate = median(exports, (run) => Number(exportedRows) / (run.ms / 1000));
    const copyRate = median(copies, (run) => Number(exportedRows) / (run.ms / 1000));
    const pairRatios = exports.map((run, index) => copies[index].ms / run.ms);
    const exportRatio = percentile(pairRatios, 0.5);
    const growth = Math.max(...exports.map((run) => run.rssPeak - run.rssBefore)) / MIB;
    const [plainP50, expandedP50] = [percentile(plain, 0.5), percentile(expanded, 0.5)];
    const expandRatio = expandedP50 / plainP50;
    const [plainHttpP50, expandedHttpP50] = [percentile(plainHttp, 0.5), percentile(expandedHttp, 0.5)];
    const expandHttpRatio = expandedHttpP50 / plainHttpP50;
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    const loadAfter = loadavg();
    const rows = [
      [`Export, CSV over HTTP (median of ${RUNS})`, `${Math.round(exportRate).toLocaleString('en')} records/s`, `${(median(exports, (run) => run.bytes) / MIB).toFixed(0)} MiB in ${(median(exports, (run) => run.ms) / 1000).toFixed(1)} s`, `${exportRatio.toFixed(2)}x of COPY (median of the pairs: ${pairRatios.map((ratio) => ratio.toFixed(2)).join(', ')})`, `>= 0.5x: ${verdict(exportRatio >= 0.5)}`],
      [`COPY (SELECT ...) TO STDOUT, CSV (pg, median of ${RUNS})`, `${Math.round(copyRate).toLocaleString('en')} records/s`, `${(median(copies, (run) => run.bytes) / MIB).toFixed(0)} MiB in ${(median(copies, (run) => run.ms) / 1000).toFixed(1)} s`, 'baseline', ''],
      ['api RSS during an export', `+${growth.toFixed(1)} MiB`, `from ${(exports[0].rssBefore / MIB).toFixed(0)} MiB`, '', `< 50 MiB: ${verdict(growth < 50)}`],
      [`GET .../records?limit=${PAGE}&expand=account (RELATION), over HTTP`, `${expandedHttpP50.toFixed(2)} ms`, `p95 ${percentile(expandedHttp, 0.95).toFixed(2)} ms`, `${expandHttpRatio.toFixed(2)}x of without`, `< 1.3x: ${verdict(expandHttpRatio < 1.3)}`],
      [`GET .../records?limit=${PAGE}, over HTTP`, `${plainHttpP50.toFixed(2)} ms`, `p95 ${percentile(plainHttp, 0.95).toFixed(2)} ms`, 'baseline', ''],
      [`records.list, page of ${PAGE}, expand=account, the procedure alone`, `${expandedP50.toFixed(2)} ms`, `p95 ${percentile(expanded, 0.95).toFixed(2)} ms`, `${expandRatio.toFixed(2)}x of without`, '(no HTTP: for the record)'],
      [`records.list, page of ${PAGE}, no expand, the procedure alone`, `${plainP50.toFixed(2)} ms`, `p95 ${percentile(plain, 0.95).toFixed(2)} ms`, 'baseline', ''],
    ];
    const table = ['| Measurement | p50 / rate | Detail | Ratio | Target |', '|---|---|---|---|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
    const notes = [
      `- ${Number(exportedRows).toLocaleString('en')} records of one model (title, SELECT, NUMBER, EMAIL, TEXT, a RELATION to one of ${ACCOUNTS.toLocaleString('en')} accounts; one note in ten reads as a formula, every note holds quotes and a comma), on the ${database.server} ${database.postgresVersion}; seeded in ${seedSeconds.toFixed(0)} s. Load average (1 min) ${loadBefore[0].toFixed(2)} before the run, ${loadAfter[0].toFixed(2)} after it, on ${cpus().length} cores shared with other work.`,
      '- The export is the api as deployed (its bundle, one process), read to the end by `fetch` in the benchmark process: key authentication, the model and its fields, then pages by keyset (the first of 1,000 records, then up to 10,000 or about 4 MiB), each its own statement in its own read-only REPEATABLE READ transaction with the task statement timeout, in which PostgreSQL hands over the columns each record shows as text (its data as the text of its jsonb), as COPY would; the api writes the CSV line of each row as it arrives, with the writer the list items use, and joins the lines into pieces of 256 as bytes, written as the socket takes them (the sort values of the last row of the page are read after it, in the same snapshot; decisions 158 and 164). The baseline selects the same columns and rows in the same order as text and lets PostgreSQL write the CSV, read by `pg-copy-streams` in the benchmark process; the two run alternately, ' + String(RUNS) + ' times each, after a warm-up; the ratio is the median of each export against the COPY just before it.',
      '- RSS is that of the api process, sampled every 50 ms from just before the request to its last byte; the growth is the largest of the exports.',
      `- expand: a page of ${PAGE}, newest first, with and without \`expand=account\`, ${EXPAND_SAMPLES} samples of each, alternating, after 20 warm-up pairs; over HTTP from the api as deployed (the key's Bearer token, \`Accept-Encoding: identity\`, the body read to its end), which the target is about, and through \`records.list\` alone in the benchmark process; the titles come after the page, from one prepared statement for the page (only related records the caller may read; the row-level check only where the related model has had a restricted record, decisions 157 and 158).`,
    ].join('\n');
    const section = `## Records: export and expand\n\nRun by \`npx tsx tools/bench/records/export.ts\` (part of \`npm run bench:records\`) on ${new Date().toISOString().slice(0, 10)}.\n\n${table}\n\n${notes}\n`;
    console.log(`\n${section}`);
    // A smaller run (BENCH_EXPORT_RECORDS) is a trial: its figures are printed, not recorded.
    if (process.env.BENCH_EXPORT_RECORDS === undefined) writeSection(resolve(__dirname, '../../../docs/benchmarks.md'), section);
    console.log(`Done in ${((Date.now() - started) / 1000).toFixed(0)} s${process.env.BENCH_EXPORT_RECORDS === undefined ? '; written to docs/benchmarks.md' : ''}`);
  } finally {
    await api?.stop();
    await client.end().catch(() => undefined);
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
