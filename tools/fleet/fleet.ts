/**
 * The fleet: every host in its own network namespace on one bridge (network.ts), the database
 * host (PostgreSQL and PgBouncer, database-host.ts), two api hosts behind a load balancer in the
 * root namespace, two webhook-worker hosts, two cron-runner hosts and a receiver host. The apps
 * run as deployed (their bundles, startAppProcess), each in its host's namespace.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createOrm, migrateToLatest } from '@mrp/platform';
import type { DeployedApp } from '@mrp/platform/deploy';
import { startAppProcess, startScriptProcess, type AppProcess } from '@mrp/platform/testing';
import { ALL_MODULES } from '@mrp/runtime';
import type { Receipt } from '../support/receiver';
import { startBalancer, type Balancer } from './balancer';
import { startDatabaseHost, type DatabaseHost } from './database-host';
import { createNetwork, fleetHost, inNamespace, removeNetwork, setLink, type FleetHost } from './network';

export const API_PORT = 3000;
const RECEIVER_PORT = 8080;
const TEMP_PREFIX = 'mrp-fleet-';

export const ROLES = ['api1', 'api2', 'worker1', 'worker2', 'cron1', 'cron2'] as const;
export type Role = (typeof ROLES)[number];

const APP_OF: Record<Role, DeployedApp> = {
  api1: 'api',
  api2: 'api',
  worker1: 'webhook-worker',
  worker2: 'webhook-worker',
  cron1: 'cron-runner',
  cron2: 'cron-runner',
};
const READY: Record<DeployedApp, RegExp> = { api: /api listening/, 'webhook-worker': /webhook-worker started/, 'cron-runner': /cron-runner started/ };

export const HOSTS = {
  db: fleetHost('db', 10),
  api1: fleetHost('api1', 21),
  api2: fleetHost('api2', 22),
  worker1: fleetHost('worker1', 31),
  worker2: fleetHost('worker2', 32),
  cron1: fleetHost('cron1', 41),
  cron2: fleetHost('cron2', 42),
  receiver: fleetHost('receiver', 50),
} satisfies Record<string, FleetHost>;

/** How the apps reach PostgreSQL: through PgBouncer in transaction mode (the fleet's), or straight. */
export type DatabaseRoute = 'transaction-pooler' | 'direct';

export interface FleetOptions {
  route: DatabaseRoute;
  /** Variables for every app (rate settings, schedules...), over the fleet's own. */
  env?: Record<string, string>;
}

export interface Incarnation {
  role: Role;
  process: AppProcess;
}

export interface Fleet {
  database: DatabaseHost;
  balancer: Balancer;
  receiverUrl: string;
  jwtSecret: string;
  /** Each api host's own address, bypassing the balancer. */
  apiUrls: Record<'api1' | 'api2', string>;
  /** Every process every role has run, in start order, for their logs. */
  incarnations: Incarnation[];
  /** Starts `role` (again), with `env` over the fleet's variables; resolves once it is ready. */
  start(role: Role, env?: Record<string, string>): Promise<AppProcess>;
  /** SIGKILLs the running process of `role`. */
  kill(role: Role): Promise<void>;
  /** SIGTERMs it and waits for it to stop. */
  stop(role: Role): Promise<void>;
  current(role: Role): AppProcess | undefined;
  /** Cuts a host off the network, or joins it again. */
  setLink(role: Role, up: boolean): Promise<void>;
  receipts(): Promise<Receipt[]>;
  /** Stops everything and removes every namespace, link and folder. */
  close(): Promise<void>;
}

/** Folders of runs that were killed before they could remove them. */
async function removeLeftoverFolders(): Promise<void> {
  for (const entry of await readdir(tmpdir())) {
    if (entry.startsWith(TEMP_PREFIX)) await rm(join(tmpdir(), entry), { recursive: true, force: true });
  }
}

const alive = (process: AppProcess | undefined) => process !== undefined && process.child.exitCode === null && process.child.signalCode === null;

/**
 * Brings the fleet up. Whatever a killed earlier run left (namespaces, processes in them,
 * folders) is removed first; whatever fails on the way up is torn down before the error is thrown.
 * One fleet per machine at a time: the names and addresses are fixed.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  await removeNetwork();
  await removeLeftoverFolders();
  const dir = await mkdtemp(join(tmpdir(), TEMP_PREFIX));
  // The postgres user passes through to the database host's folder.
  await chmod(dir, 0o755);

  const jwtSecret = randomBytes(32).toString('hex');
  const incarnations: Incarnation[] = [];
  const running = new Map<Role, AppProcess>();
  let database: DatabaseHost | undefined;
  let balancer: Balancer | undefined;
  let receiver: AppProcess | undefined;

  const close = async () => {
    await Promise.all(
      [...running.values(), ...(receiver ? [receiver] : [])].filter(alive).map(async (process) => {
        process.child.kill('SIGKILL');
        await process.exited;
      }),
    );
    await balancer?.close().catch(() => undefined);
    await database?.stop().catch(() => undefined);
    await removeNetwork();
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await createNetwork(Object.values(HOSTS));
    database = await startDatabaseHost({
      host: HOSTS.db,
      dir: join(dir, 'db'),
      poolMode: options.route === 'transaction-pooler' ? 'transaction' : 'session',
      poolSize: 40,
    });
    // Migrated once, from here, straight at PostgreSQL: as a deployment's release step would.
    const orm = await createOrm({ databaseUrl: database.directUrl, modules: ALL_MODULES, poolSize: 2 });
    try {
      await migrateToLatest(orm);
    } finally {
      await orm.close(true);
    }

    receiver = startScriptProcess(
      resolve(__dirname, 'receiver-host.ts'),
      { FLEET_RECEIVER_HOST: HOSTS.receiver.address, FLEET_RECEIVER_PORT: String(RECEIVER_PORT) },
      { runUnder: inNamespace(HOSTS.receiver) },
    );
    const receiverLine = await receiver.waitForLine(/receiver listening/, 30_000);
    const receiverUrl = (JSON.parse(receiverLine) as { url: string }).url;
    const receiptsUrl = new URL('/receipts', receiverUrl).toString();

    const databaseEnv: Record<string, string> =
      options.route === 'transaction-pooler'
        ? { DATABASE_URL: database.poolerUrl, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: database.directUrl }
        : { DATABASE_URL: database.directUrl };
    const fleetEnv: Record<string, string> = {
      ...databaseEnv,
      // Receivers on private addresses are allowed outright only in development.
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      AUTH_JWT_SECRET: jwtSecret,
      CURSOR_SECRET: randomBytes(32).toString('hex'),
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      WEBHOOK_TIMEOUT_SECONDS: '2',
      JOB_MAINTENANCE_INTERVAL_SECONDS: '1',
      FEATURE_FLAGS: 'public-api.enabled=true',
      HOST: '0.0.0.0',
      PORT: String(API_PORT),
      ...options.env,
    };

    const fleet: Fleet = {
      database,
      balancer: (balancer = await startBalancer([
        { host: HOSTS.api1.address, port: API_PORT },
        { host: HOSTS.api2.address, port: API_PORT },
      ])),
      receiverUrl,
      jwtSecret,
      apiUrls: { api1: `http://${HOSTS.api1.address}:${API_PORT}`, api2: `http://${HOSTS.api2.address}:${API_PORT}` },
      incarnations,
      async start(role, env = {}) {
        const app = APP_OF[role];
        const process = startAppProcess(app, { ...fleetEnv, ...env }, { runUnder: inNamespace(HOSTS[role]) });
        incarnations.push({ role, process });
        running.set(role, process);
        await process.waitForLine(READY[app], 60_000);
        return process;
      },
      async kill(role) {
        const process = running.get(role);
        if (!alive(process)) return;
        process?.child.kill('SIGKILL');
        await process?.exited;
      },
      async stop(role) {
        const process = running.get(role);
        if (!alive(process)) return;
        process?.child.kill('SIGTERM');
        await process?.exited;
      },
      current: (role) => running.get(role),
      setLink: (role, up) => setLink(HOSTS[role], up),
      async receipts() {
        const response = await fetch(receiptsUrl);
        return (await response.json()) as Receipt[];
      },
      close,
    };
    return fleet;
  } catch (error) {
    await close();
    throw error;
  }
}
