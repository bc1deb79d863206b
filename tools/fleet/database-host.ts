import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, chown, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { FLEET_CIDR, inNamespace, type FleetHost } from './network';

const run = promisify(execFile);

const POSTGRES_PORT = 5432;
const POOLER_PORT = 6432;
export const FLEET_DATABASE = 'fleet';
const READY_TIMEOUT_MS = 30_000;
export const IDLE_TRANSACTION_TIMEOUT_SECONDS = 10;

export interface DatabaseHostOptions {
  host: FleetHost;
  /** A folder of ours for the data folder and PgBouncer's configuration (handed to the postgres user). */
  dir: string;
  /** PgBouncer's pool mode: `transaction` for the fleet, `session` before the apps support it. */
  poolMode: 'transaction' | 'session';
  /** Server connections PgBouncer keeps to PostgreSQL for the fleet's database. */
  poolSize: number;
}

export interface DatabaseHost {
  /** PostgreSQL itself, from any host of the fleet (and the root namespace). */
  directUrl: string;
  /** PgBouncer, in front of it. */
  poolerUrl: string;
  /** SIGTERMs PgBouncer (its immediate shutdown: every client connection dropped) and starts it again. */
  restartPooler(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * PostgreSQL's binaries: FLEET_POSTGRES_BINDIR, else the server of `pg_config --bindir` (Debian's
 * postgresql packages; CI installs them with pgbouncer).
 */
async function postgresBinDir(): Promise<string> {
  if (process.env.FLEET_POSTGRES_BINDIR) return process.env.FLEET_POSTGRES_BINDIR;
  return (await run('pg_config', ['--bindir'])).stdout.trim();
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string) => Number.parseInt((await run('id', [flag, 'postgres'])).stdout.trim(), 10);
  return { uid: await id('-u'), gid: await id('-g') };
}

/** PostgreSQL refuses to run as root, and so does PgBouncer: both run as the postgres user, in the host's namespace. */
function asPostgresUser(host: FleetHost): string[] {
  return [...inNamespace(host), 'setpriv', '--reuid=postgres', '--regid=postgres', '--clear-groups'];
}

/** Starts `command` and resolves once its stderr (both servers log there) says `ready`. */
function startServer(command: string[], ready: RegExp, what: string): Promise<{ child: ChildProcess; log: () => string }> {
  const [program, ...args] = command;
  const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '', LC_ALL: 'C' } });
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start within ${READY_TIMEOUT_MS} ms: ${log.slice(-2000)}`));
    }, READY_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-64_000);
      if (ready.test(log)) {
        clearTimeout(timer);
        resolve({ child, log: () => log });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code ?? signal}) before it was ready: ${log.slice(-2000)}`));
    });
  });
}

async function stopServer(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(force);
}

/**
 * The fleet's database host: a PostgreSQL of its own (a fresh data folder, not the machine's
 * server) and PgBouncer beside it, both listening on the host's address. Durability settings are
 * off: no fault here stops PostgreSQL, and the machine is shared.
 */
export async function startDatabaseHost(options: DatabaseHostOptions): Promise<DatabaseHost> {
  const { host, dir } = options;
  const binDir = await postgresBinDir();
  const user = await postgresUser();
  const dataDir = join(dir, 'data');
  await mkdir(dir, { mode: 0o755 });
  await mkdir(dataDir, { mode: 0o700 });
  await chown(dir, user.uid, user.gid);
  await chown(dataDir, user.uid, user.gid);

  // A password of this run's own: every connection, the apps' and PgBouncer's, authenticates with it.
  const password = randomBytes(18).toString('hex');
  const secretFile = async (name: string, content: string) => {
    const path = join(dir, name);
    await writeFile(path, content, { mode: 0o600 });
    await chown(path, user.uid, user.gid);
    return path;
  };
  const passwordFile = await secretFile('superuser-password', `${password}\n`);

  await run(asPostgresUser(host)[0], [
    ...asPostgresUser(host).slice(1),
    join(binDir, 'initdb'),
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=scram-sha-256',
    `--pwfile=${passwordFile}`,
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  // The fleet's private network only: no host outside it reaches the bridge.
  await appendFile(join(dataDir, 'pg_hba.conf'), `host all all ${FLEET_CIDR} scram-sha-256\n`);

  const postgres = await startServer(
    [
      ...asPostgresUser(host),
      join(binDir, 'postgres'),
      '-D',
      dataDir,
      '-p',
      String(POSTGRES_PORT),
      '-c',
      `listen_addresses=${host.address},127.0.0.1`,
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    /database system is ready to accept connections/,
    'PostgreSQL',
  );

  const adminUrl = `postgres://postgres:${password}@${host.address}:${POSTGRES_PORT}/postgres`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${FLEET_DATABASE}`);
  } finally {
    await admin.end();
  }

  const poolerConfig = join(dir, 'pgbouncer.ini');
  await writeFile(
    poolerConfig,
    [
      '[databases]',
      `${FLEET_DATABASE} = host=127.0.0.1 port=${POSTGRES_PORT} dbname=${FLEET_DATABASE} user=postgres password=${password}`,
      '[pgbouncer]',
      `listen_addr = ${host.address}`,
      `listen_port = ${POOLER_PORT}`,
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${await secretFile('pgbouncer-users.txt', `"postgres" "${password}"\n`)}`,
      `pool_mode = ${options.poolMode}`,
      'max_client_conn = 2000',
      `default_pool_size = ${options.poolSize}`,
      `max_db_connections = ${options.poolSize}`,
      'ignore_startup_parameters = extra_float_digits',
      // A host cut off mid-transaction leaves it open, its row locks held (a worker's lock on an
      // endpoint stops every other worker's deliveries to it) until its connection dies, which
      // nothing notices for as long as the cut lasts: PgBouncer ends such a transaction after 10 s.
      `idle_transaction_timeout = ${IDLE_TRANSACTION_TIMEOUT_SECONDS}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    // It holds the password.
    { mode: 0o600 },
  );
  await chown(poolerConfig, user.uid, user.gid);

  const startPooler = () => startServer([...asPostgresUser(host), 'pgbouncer', poolerConfig], /process up/, 'PgBouncer');
  let pooler = await startPooler();

  return {
    directUrl: `postgres://postgres:${password}@${host.address}:${POSTGRES_PORT}/${FLEET_DATABASE}`,
    poolerUrl: `postgres://postgres:${password}@${host.address}:${POOLER_PORT}/${FLEET_DATABASE}`,
    async restartPooler() {
      await stopServer(pooler.child, 'SIGTERM');
      pooler = await startPooler();
    },
    async stop() {
      await stopServer(pooler.child, 'SIGTERM');
      // Fast shutdown: sessions still open (a dead app's) do not hold it up.
      await stopServer(postgres.child, 'SIGINT');
    },
  };
}
