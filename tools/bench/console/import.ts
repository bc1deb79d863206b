/**
 * Console CSV import benchmark: `npm run bench:console`.
 *
 * Starts the api as deployed (its bundle, the built console at `/`) on a throwaway database and
 * drives Debian's Chromium through the console's import of a CSV of BENCH_IMPORT_ROWS (default
 * 10,000) contacts, ROUNDS times, each into a model of its own. Per round it reads the import's
 * own User Timing measures (`import:parse` in the worker, `import:check`: every row through
 * field-validation, `import:send`: the batches) and the wall time from choosing the file to the
 * "Imported" line. The baseline, in the same run: the same records sent straight from Node to
 * `records.createMany` in batches of 1,000, with no browser. Target: the check under 2 s.
 * Writes the "Console: CSV import" section of docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SignJWT } from 'jose';
import { chromium } from 'playwright-core';
import { BENCH_ADMIN, apiEnvironment, startApiProcess, type ServerProcess } from '../api/server-process';
import { writeSection } from '../shared/markdown-section';
import { createThrowawayDatabase } from '../shared/throwaway-database';

const ROOT = resolve(__dirname, '../../..');
const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 3);
const BATCH = 1_000;
const CHECK_TARGET_MS = 2_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const PLANS = [
  { value: 'free', label: 'Free' },
  { value: 'pro', label: 'Pro' },
  { value: 'team', label: 'Team' },
];

/** Contacts of five typed columns, as a spreadsheet writes them (a label for the plan, `yes`/`no`). */
function contactsCsv(): string {
  const lines = ['Title,Email,Age,Plan,Joined,Active'];
  for (let row = 0; row < ROWS; row += 1) {
    const joined = `2026-${String((row % 12) + 1).padStart(2, '0')}-${String((row % 28) + 1).padStart(2, '0')}`;
    lines.push(`Contact ${row},person${row}@example.com,${20 + (row % 60)},${PLANS[row % 3]?.label},${joined},${row % 2 ? 'yes' : 'no'}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

function contactsData(): Array<Record<string, unknown>> {
  return Array.from({ length: ROWS }, (_, row) => ({
    title: `Contact ${row}`,
    email: `person${row}@example.com`,
    age: 20 + (row % 60),
    plan: PLANS[row % 3]?.value,
    joined: `2026-${String((row % 12) + 1).padStart(2, '0')}-${String((row % 28) + 1).padStart(2, '0')}`,
    active: row % 2 === 1,
  }));
}

async function rpc<T>(api: ServerProcess, token: string, organizationId: string | null, name: string, input: unknown): Promise<T> {
  const response = await fetch(`${api.url}/rpc/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...(organizationId ? { 'X-Organization-Id': organizationId } : {}) },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as T;
  if (!response.ok) throw new Error(`${name} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const build = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/console/scripts/ensure-build.ts')], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('The console could not be built');
  const database = await createThrowawayDatabase();
  const env = apiEnvironment(database.url);
  const folder = mkdtempSync(join(tmpdir(), 'bench-console-import-'));
  let api: ServerProcess | undefined;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    api = await startApiProcess('api', env);
    const token = await new SignJWT({ email: BENCH_ADMIN.email, name: BENCH_ADMIN.name })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(BENCH_ADMIN.sub)
      .setIssuedAt()
      .setExpirationTime('2h')
      .sign(new TextEncoder().encode(env.AUTH_JWT_SECRET));
    const { id: organizationId } = await rpc<{ id: string }>(api, token, null, 'organizations.create', { name: 'Import bench' });
    const call = <T>(name: string, input: unknown) => rpc<T>(api as ServerProcess, token, organizationId, name, input);
    const createModel = async (key: string) => {
      await call('dataModels.create', { key, name: `Contacts ${key}` });
      await call('dataModels.fields.create', { model: key, key: 'email', name: 'Email', type: 'EMAIL' });
      await call('dataModels.fields.create', { model: key, key: 'age', name: 'Age', type: 'NUMBER', config: { precision: 0, min: 0 } });
      await call('dataModels.fields.create', { model: key, key: 'plan', name: 'Plan', type: 'SELECT', config: { options: PLANS } });
      await call('dataModels.fields.create', { model: key, key: 'joined', name: 'Joined', type: 'DATE' });
      await call('dataModels.fields.create', { model: key, key: 'active', name: 'Active', type: 'BOOLEAN' });
    };
    const file = join(folder, 'contacts.csv');
    writeFileSync(file, contactsCsv());
    const records = contactsData();

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(`sessionStorage.setItem('console.session', ${JSON.stringify(token)}); localStorage.setItem('console.organization', ${JSON.stringify(organizationId)});`);
    const page = await context.newPage();
    page.setDefaultTimeout(120_000);

    const rounds: Array<{ parse: number; check: number; send: number; wall: number; baseline: number }> = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const viaConsole = `import_${round}`;
      const direct = `direct_${round}`;
      await createModel(viaConsole);
      await createModel(direct);

      // Baseline: the same records, batch after batch, straight to records.createMany.
      const baselineStart = performance.now();
      for (let start = 0; start < records.length; start += BATCH) {
        await call('records.createMany', { model: direct, records: records.slice(start, start + BATCH).map((data) => ({ data })) });
      }
      const baseline = performance.now() - baselineStart;

      await page.goto(`${api.url}/models/${viaConsole}/records`);
      await page.getByRole('button', { name: 'Import CSV' }).click();
      const dialog = page.getByRole('dialog', { name: /^Import CSV into/ });
      await dialog.getByLabel('CSV file').waitFor();
      await page.evaluate('performance.clearMeasures()');
      const wallStart = performance.now();
      await dialog.getByLabel('CSV file').setInputFiles(file);
      await dialog.getByRole('button', { name: /^Check / }).click();
      await dialog.getByRole('button', { name: /^Import [\d,]+ records$/ }).click();
      await dialog.getByText(new RegExp(`^Imported ${ROWS.toLocaleString('en-US')} of`)).waitFor();
      const wall = performance.now() - wallStart;
      const measures = await page.evaluate<Record<string, number>>(
        `Object.fromEntries(performance.getEntriesByType('measure').filter((entry) => entry.name.startsWith('import:')).map((entry) => [entry.name.slice(7), entry.duration]))`,
      );
      const counted = await call<Array<{ key: string; recordCount: number }> | { items: Array<{ key: string; recordCount: number }> }>('dataModels.list', { recordCounts: true });
      const items = Array.isArray(counted) ? counted : counted.items;
      const imported = items.find((item) => item.key === viaConsole)?.recordCount;
      if (imported !== ROWS) throw new Error(`Round ${round}: ${imported} records imported, not ${ROWS}`);
      rounds.push({ parse: measures.parse ?? NaN, check: measures.check ?? NaN, send: measures.send ?? NaN, wall, baseline });
      console.log(`round ${round}: parse ${seconds(measures.parse ?? NaN)}, check ${seconds(measures.check ?? NaN)}, send ${seconds(measures.send ?? NaN)}, end to end ${seconds(wall)}; createMany from Node ${seconds(baseline)}`);
    }

    const pick = (key: keyof (typeof rounds)[number]) => median(rounds.map((round) => round[key]));
    const range = (key: keyof (typeof rounds)[number]) => {
      const values = rounds.map((round) => round[key]);
      return `${seconds(Math.min(...values))} to ${seconds(Math.max(...values))}`;
    };
    const check = pick('check');
    const wall = pick('wall');
    const send = pick('send');
    const baseline = pick('baseline');
    const chromiumVersion = browser.version();
    const section = [
      '## Console: CSV import',
      '',
      `\`npm run bench:console\` (tools/bench/console/import.ts): the console's import of a CSV of ${ROWS.toLocaleString('en-US')} contacts (title, email, number, single select by label, date, yes/no) in Chromium ${chromiumVersion}, headless, against the api bundle on ${database.server} (PostgreSQL ${database.postgresVersion}); median of ${ROUNDS} rounds, each into a new model. Baseline in the same run: the same records sent from Node to \`records.createMany\`, ${BATCH.toLocaleString('en-US')} at a time.`,
      '',
      '| Step | Median |',
      '|---|---|',
      `| parse (papaparse in a Web Worker) | ${seconds(pick('parse'))} |`,
      `| check every row in the browser (field-validation) | ${seconds(check)} (target < ${seconds(CHECK_TARGET_MS)}: ${check < CHECK_TARGET_MS ? 'met' : 'missed'}) |`,
      `| send (${Math.ceil(ROWS / BATCH)} batches through \`records.createMany\`) | ${seconds(send)} |`,
      `| end to end (file chosen to "Imported", three clicks included) | ${seconds(wall)} |`,
      `| baseline: the batches from Node | ${seconds(baseline)} |`,
      '',
      `The browser's send takes ${(send / baseline).toFixed(2)}x the baseline; the whole import, ${(wall / baseline).toFixed(2)}x. Each figure is its own median; the rounds ranged ${range('check')} (check), ${range('send')} (send), ${range('wall')} (end to end) and ${range('baseline')} (baseline), on 2 cores that other work may share.`,
      '',
    ].join('\n');
    writeSection(join(ROOT, 'docs/benchmarks.md'), section);
    console.log(`\n${section}`);
  } finally {
    await browser.close();
    await api?.stop();
    await database.drop();
    rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
