/**
 * The fault suite: the three apps as separate processes on an embedded PostgreSQL of the suite's
 * own, a webhook receiver, and writers creating records with idempotency keys, while faults are
 * applied in turn: the api SIGKILLed and restarted, the webhook worker SIGKILLed twice, PostgreSQL
 * restarted, the cron-runner SIGKILLed. The promises checked: every 2xx has exactly one record,
 * every record exactly one event, delivered at least once (a resend with the same Idempotency-Key
 * and a higher Webhook-Attempt), no 500 ever (a database restart is a 503), a dead worker's
 * deliveries arrive within 15 s of their commit, every app recovers by itself, and every line an
 * app prints is a JSON log line. The figures are printed for docs/operations.md, "Faults".
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createOrm, freePort, migrateToLatest } from '@mrp/platform';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '@mrp/platform/dev';
import { startAppProcess, type AppProcess } from '@mrp/platform/testing';
import type { DeployedApp } from '@mrp/platform/deploy';
import { ALL_MODULES } from '@mrp/runtime';
import { startReceiver, type Receipt } from '../support/receiver';
import { seedOrganization } from '../support/seed-organization';
import { startWriters, type Write } from '../support/writers';

const JWT_SECRET = randomBytes(32).toString('hex');
const WRITERS = 8;
const LOAD_SECONDS = 4;
/**
 * A dead worker's deliveries go out again once their jobs expire (12 s after it fetched them),
 * pg-boss's maintenance finds them (every second here) and another worker's poll (2 s) fetches them.
 */
const WORST_DELAY_AFTER_WORKER_DEATH_MS = 20_000;
/** How long a dead worker's jobs stay taken: their expiry, and one maintenance interval. */
const DEAD_WORKER_JOBS_SECONDS = 13;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('the platform under faults', () => {
  let dataDir: string;
  let postgres: EmbeddedDatabase;
  let postgresPort: number;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let env: Record<string, string>;
  let apiPort: number;
  /** Every incarnation of every app, for their log lines. */
  const incarnations: Array<{ app: DeployedApp; process: AppProcess }> = [];
  /** The running process of each role: `api`, `webhook-worker 1`, `webhook-worker 2`, `cron-runner`. */
  const current = new Map<string, AppProcess>();
  const recoveries: Array<{ fault: string; ms: number }> = [];

  const READY: Record<DeployedApp, RegExp> = { api: /api listening/, 'webhook-worker': /webhook-worker started/, 'cron-runner': /cron-runner started/ };

  async function start(role: string): Promise<number> {
    const app = role.split(' ')[0] as DeployedApp;
    const startedAt = Date.now();
    const process = startAppProcess(app, app === 'api' ? { ...env, PORT: String(apiPort) } : env);
    incarnations.push({ app, process });
    current.set(role, process);
    await process.waitForLine(READY[app], 60_000);
    return Date.now() - startedAt;
  }

  async function kill(role: string): Promise<void> {
    const process = current.get(role) as AppProcess;
    process.child.kill('SIGKILL');
    await process.exited;
  }

  // Kept across the restart; removed at the end.
  const startPostgres = () => startEmbeddedPostgres({ dataDir: join(dataDir, 'data'), port: postgresPort, database: 'faults', persistent: true });

  beforeAll(async () => {
    // A folder of ours holds the data folder and its password; open to the postgres user (as root).
    dataDir = await mkdtemp(join(tmpdir(), 'faults-'));
    await chmod(dataDir, 0o755);
    postgresPort = await freePort();
    postgres = await startPostgres();
    const orm = await createOrm({ databaseUrl: postgres.url, modules: ALL_MODULES, poolSize: 2 });
    await migrateToLatest(orm);
    await orm.close(true);
    receiver = await startReceiver();
    apiPort = await freePort();
    env = {
      DATABASE_URL: postgres.url,
      // Receivers on loopback are allowed only outright in development.
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      AUTH_JWT_SECRET: JWT_SECRET,
      CURSOR_SECRET: randomBytes(32).toString('hex'),
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      WEBHOOK_TIMEOUT_SECONDS: '2',
      JOB_MAINTENANCE_INTERVAL_SECONDS: '1',
      FEATURE_FLAGS: 'public-api.enabled=true',
      PUBLIC_API_RATE_PER_SECOND: '100000',
      PUBLIC_API_BURST: '100000',
    };
  }, 120_000);

  afterAll(async () => {
    for (const process of current.values()) if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGKILL');
    await receiver?.close();
    await postgres?.stop();
    await rm(postgres?.dataDir ?? dataDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('keeps every promise through killed processes and a database restart', async () => {
    // Two delivery workers, as a deployment runs them: when one dies, the other takes its claims over.
    for (const role of ['api', 'webhook-worker 1', 'webhook-worker 2', 'cron-runner']) await start(role);
    const url = `http://127.0.0.1:${apiPort}`;
    const {
      tokens: [token],
    } = await seedOrganization({ apiUrl: url, jwtSecret: JWT_SECRET, name: 'Faults', modelKey: 'orders', receiverUrl: receiver.url, keyCount: 1 });

    let phase = 'steady';
    const phaseStarted = new Map<string, number>();
    const enter = (name: string) => {
      phase = name;
      phaseStarted.set(name, Date.now());
    };
    enter('steady');
    const writers = startWriters({ count: WRITERS, url: () => url, token, modelKey: 'orders', phase: () => phase });
    await sleep(LOAD_SECONDS * 1000);

    enter('api killed');
    await kill('api');
    recoveries.push({ fault: 'api SIGKILLed, then started again', ms: await start('api') });
    await sleep(LOAD_SECONDS * 1000);

    enter('worker killed');
    for (const role of ['webhook-worker 1', 'webhook-worker 2']) {
      await kill(role);
      // Its jobs expire while it is gone: the other worker sends their deliveries.
      await sleep(DEAD_WORKER_JOBS_SECONDS * 1000);
      recoveries.push({ fault: `${role} SIGKILLed, then started again`, ms: await start(role) });
      await sleep(LOAD_SECONDS * 1000);
    }

    enter('database restarted');
    const restartAt = Date.now();
    await postgres.stop();
    postgres = await startPostgres();
    // Recovered when a request that needs the database is served again.
    await until(async () => (await fetch(`${url}/health`).catch(() => undefined))?.status === 200, 60_000, 'the api to reach the database again');
    recoveries.push({ fault: 'PostgreSQL restarted (the api serving again)', ms: Date.now() - restartAt });
    await sleep(LOAD_SECONDS * 1000);

    enter('cron-runner killed');
    await kill('cron-runner');
    recoveries.push({ fault: 'cron-runner SIGKILLed, then started again', ms: await start('cron-runner') });
    await sleep(LOAD_SECONDS * 1000);

    enter('after');
    const figures = await writers.stop();
    const writes = figures.writes;

    // Every record delivered at least once.
    const firstReceipt = new Map<string, Receipt>();
    await until(
      () => {
        for (const receipt of receiver.receipts) if (receipt.recordId && !firstReceipt.has(receipt.recordId)) firstReceipt.set(receipt.recordId, receipt);
        return writes.every((write) => firstReceipt.has(write.recordId));
      },
      60_000,
      'every record to be delivered',
    );

    // Every 2xx has exactly one record, and no record exists without its 2xx.
    const client = new Client({ connectionString: postgres.url });
    await client.connect();
    let stored: Array<{ id: string; title: string }>;
    try {
      stored = (await client.query<{ id: string; title: string }>('SELECT id::text, title FROM records')).rows;
    } finally {
      await client.end();
    }
    expect(stored.length).toBe(writes.length);
    expect(new Map(stored.map((row) => [row.title, row.id]))).toEqual(new Map(writes.map((write) => [write.title, write.recordId])));

    // Exactly one event per record; a resend keeps its key and counts its attempt up.
    const byRecord = new Map<string, Receipt[]>();
    for (const receipt of receiver.receipts) byRecord.set(receipt.recordId as string, [...(byRecord.get(receipt.recordId as string) ?? []), receipt]);
    const resent = [...byRecord.values()].filter((receipts) => receipts.length > 1);
    for (const receipts of byRecord.values()) {
      expect(new Set(receipts.map((receipt) => receipt.eventId)).size).toBe(1);
      expect(new Set(receipts.map((receipt) => receipt.idempotencyKey)).size).toBe(1);
      const attempts = receipts.map((receipt) => receipt.attempt);
      expect(attempts).toEqual([...attempts].sort((a, b) => a - b));
      expect(new Set(attempts).size).toBe(attempts.length);
    }

    const delay = (write: Write) => (firstReceipt.get(write.recordId) as Receipt).at - write.at;
    const byPhase = (name: string) => writes.filter((write) => write.phase === name);
    const report = [
      `requests ${figures.requests}, records ${writes.length}, answers ${[...figures.byKind].map(([kind, n]) => `${kind}: ${n}`).join(', ')}`,
      ...recoveries.map(({ fault, ms }) => `${fault}: ${ms} ms`),
      `deliveries received ${receiver.receipts.length} for ${byRecord.size} records (${resent.length} sent more than once)`,
      `worst commit-to-receipt after a worker death: ${Math.max(...writes.filter((write) => write.phase === 'worker killed').map(delay))} ms; p50 of all: ${[...writes.map(delay)].sort((a, b) => a - b)[Math.floor(writes.length / 2)]} ms`,
      ...['steady', 'api killed', 'worker killed', 'database restarted', 'cron-runner killed'].map((name) => `writes landed while "${name}": ${byPhase(name).length}`),
    ];
    console.log(`Fault suite figures:\n${report.join('\n')}`);

    // No 500, ever: a database that went away is a 503.
    expect(figures.unexpected).toEqual([]);

    // A dead worker's deliveries came back within the bound.
    const afterWorkerDeath = writes.filter((write) => write.phase === 'worker killed');
    const worstAfterWorkerDeath = Math.max(...afterWorkerDeath.map(delay));
    expect(afterWorkerDeath.length).toBeGreaterThan(0);
    expect(worstAfterWorkerDeath).toBeLessThan(WORST_DELAY_AFTER_WORKER_DEATH_MS);

    // Every app recovered by itself: all three still run, and a last write is delivered.
    for (const process of current.values()) expect(process.child.exitCode).toBeNull();

    // Every line every app printed is a JSON log line.
    const notJson: string[] = [];
    for (const { app, process } of incarnations) {
      const { stdout, stderr } = process.output();
      for (const line of `${stdout}${stderr}`.split('\n').filter(Boolean)) {
        try {
          JSON.parse(line);
        } catch {
          notJson.push(`${app}: ${line}`);
        }
      }
    }
    expect(notJson).toEqual([]);


  });
});
