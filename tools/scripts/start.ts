/**
 * `npm start`: the whole platform on one machine. Without DATABASE_URL it starts the embedded
 * PostgreSQL (data under .data/), applies migrations, seeds a demo organization (development
 * only), builds the web console when its build is missing or stale, bundles the apps from their
 * sources, then runs the api (which serves the console at /), webhook-worker and cron-runner as
 * separate processes, exactly as they are deployed. Whatever stops the launcher (Ctrl-C, SIGTERM,
 * a closed terminal, a crash, SIGKILL) stops the apps and the database too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, relative, resolve } from 'node:path';
import { ConfigError, apiAddress, loadConfig } from '@mrp/platform';
import { EmbeddedPostgresError, startEmbeddedPostgres, type EmbeddedDatabase } from '@mrp/platform/dev';
import { DEPLOYED_APPS, appNodeArguments, buildAppBundle, type DeployedApp } from '@mrp/platform/deploy';
import { describeStartupFailure } from '@mrp/runtime';
import { logDestination, logsDir, sendLogsToFile, type LogDestination } from './app-logs';
import { loadOrCreateDevSecrets } from './dev-secrets';
import { acquireLocalDataLock, localDataDir, type LocalDataLock } from './local-data-lock';
import { migrateDatabase } from './migrate';
import { seedDemo } from './seed-demo';

const WORKSPACE_ROOT = resolve(__dirname, '..', '..');
const APP_STOP_TIMEOUT_MS = 20_000;

/** A start-up failure the launcher explains itself, in one line. */
class StartFailure extends Error {}

/**
 * The console's own script decides whether its build is stale and rebuilds it (a child process:
 * the console is a project of its own, and vite's work should not stay in the launcher's memory).
 * A failed build leaves the platform running without the console, saying so.
 */
function buildConsoleIfStale(): Promise<void> {
  const script = join(WORKSPACE_ROOT, 'apps', 'console', 'scripts', 'ensure-build.ts');
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: WORKSPACE_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    const failed = (why: string) => {
      process.stderr.write(`start: the console could not be built (${why}); the api runs without it\n`);
      done();
    };
    child.once('error', (error) => failed(error.message));
    child.once('exit', (code, signal) => (code === 0 ? done() : failed(signal ?? `exit code ${code}`)));
  });
}

/** Each app runs as deployed, from a bundle of the current sources; a source that does not build stops the start. */
function buildApps(): void {
  for (const app of DEPLOYED_APPS) {
    try {
      buildAppBundle(app);
    } catch (error) {
      throw new StartFailure(`${app} could not be built: ${(error as Error).message.split('\n').slice(0, 3).join(' ')}`);
    }
  }
}

interface RunningApp {
  app: DeployedApp;
  child: ChildProcess;
  ready: boolean;
}

const apps: RunningApp[] = [];
let database: EmbeddedDatabase | undefined;
let lock: LocalDataLock | undefined;
let stopping: Promise<void> | undefined;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function stopApp({ child }: RunningApp): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const force = setTimeout(() => child.kill('SIGKILL'), APP_STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** Apps first, the database last, then the lock; exits with `code`. Safe to call more than once. */
function stopEverything(code: number): Promise<void> {
  stopping ??= (async () => {
    await Promise.all(apps.map(stopApp));
    await database?.stop().catch(() => undefined);
    lock?.release();
    process.exit(code);
  })();
  return stopping;
}

// Children run in their own process groups, so a Ctrl-C or a closed terminal reaches the launcher
// only, which stops the apps first and the database last.
function startApp(app: DeployedApp, env: NodeJS.ProcessEnv, logs: { destination: LogDestination; dir: string }): Promise<RunningApp> {
  const child = spawn(process.execPath, appNodeArguments(app), {
    cwd: WORKSPACE_ROOT,
    env,
    // The IPC channel tells the app when the launcher is gone, however it died.
    stdio: ['ignore', logs.destination === 'file' ? 'pipe' : 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  if (child.stdout) sendLogsToFile(app, child.stdout, logs.dir, process.stderr);
  const running: RunningApp = { app, child, ready: false };
  apps.push(running);
  return new Promise((done, fail) => {
    child.on('message', (message: { type?: string }) => {
      if (message?.type !== 'ready' || running.ready) return;
      running.ready = true;
      done(running);
    });
    child.once('exit', (code, signal) => {
      if (stopping) return;
      if (!running.ready) {
        // An app that fails to start has said why on stderr, in one line.
        fail(code === 1 ? new StartFailure('') : new StartFailure(`${app} stopped during start-up (${signal ?? `exit code ${code}`})`));
        return;
      }
      process.stderr.write(`start: ${app} stopped (${signal ?? `exit code ${code}`}); stopping the platform\n`);
      void stopEverything(1);
    });
  });
}

async function main(): Promise<void> {
  // npm start is the development launcher unless told otherwise, and says so to its apps outright.
  const env: NodeJS.ProcessEnv = { NODE_ENV: 'development', ...process.env };
  // One machine, no load balancer to drain for: Ctrl-C stops at once, in production mode too.
  env.SHUTDOWN_DRAIN_SECONDS ??= '0';
  const dataDir = localDataDir(env, WORKSPACE_ROOT);
  const { nodeEnv } = loadConfig(env);
  if (nodeEnv !== 'production') {
    const secrets = loadOrCreateDevSecrets(join(dataDir, 'dev-secrets.json'));
    env.AUTH_JWT_SECRET ??= env.AUTH_JWKS_URL ? undefined : secrets.authJwtSecret;
    env.CRON_SECRET ??= secrets.cronSecret;
    env.CURSOR_SECRET ??= secrets.cursorSecret;
    env.WEBHOOK_SECRET_ENCRYPTION_KEY ??= secrets.webhookSecretEncryptionKey;
    env.FEATURE_FLAGS ??= 'public-api.enabled=true';
    env.PLATFORM_ADMIN_EMAILS ??= 'admin@demo.example';
  }
  const config = loadConfig(env, { requireSessionAuth: true });
  const url = apiAddress(config);
  const logs = { destination: logDestination(env, config.nodeEnv), dir: logsDir(dataDir) };

  const taken = acquireLocalDataLock(dataDir, 'npm start');
  if ('heldBy' in taken) {
    const { pid, command, apiUrl: runningUrl } = taken.heldBy;
    const where = runningUrl ? `, api on ${runningUrl}` : '';
    throw new StartFailure(`${command} is already running here (pid ${pid}${where}): stop it first (Ctrl-C in its terminal, or kill ${pid})`);
  }
  lock = taken;
  lock.update({ apiUrl: url });
  // Built while the database starts; awaited before the api, which serves it.
  const consoleBuilt = buildConsoleIfStale();

  if (!env.DATABASE_URL) {
    database = await startEmbeddedPostgres({
      dataDir: join(dataDir, 'postgres'),
      port: config.embeddedPostgresPort,
      // We hold the lock: a server still running on our data was left by a killed start.
      replaceLeftoverServer: true,
    });
    env.DATABASE_URL = database.url;
    // npm run bootstrap and npm run migrate use this server while we run.
    lock.update({ embeddedPostgres: { dataDir: database.dataDir, port: config.embeddedPostgresPort } });
    const shownDir = relative(WORKSPACE_ROOT, database.dataDir).startsWith('..') ? database.dataDir : relative(WORKSPACE_ROOT, database.dataDir);
    say(`Embedded PostgreSQL on 127.0.0.1:${config.embeddedPostgresPort} (pid ${database.pid}, data in ${shownDir})`);
  }

  // Migrations need PostgreSQL itself, not a pooler in front of it.
  const applied = await migrateDatabase(config.databaseDirectUrl ?? env.DATABASE_URL);
  say(applied.length ? `Applied ${applied.length} migration(s)` : 'Database schema is up to date');
  if (config.nodeEnv === 'development') {
    await seedDemo(loadConfig(env, { requireSessionAuth: true }));
  } else {
    say(`No demo data outside development. Create the first organization and its key with:`);
    say(`  npm run bootstrap -- --email you@example.com --org "Your organization"   (see docs/operations.md)`);
  }

  buildApps();
  await consoleBuilt;
  const started = await Promise.all(DEPLOYED_APPS.map((app) => startApp(app, env, logs)));
  for (const { app, child } of started) say(`${app} running (pid ${child.pid})`);
  if (logs.destination === 'file') {
    const shownLogs = relative(WORKSPACE_ROOT, logs.dir).startsWith('..') ? logs.dir : relative(WORKSPACE_ROOT, logs.dir);
    say(`Logs of the apps in ${shownLogs}/ (errors also here; START_LOGS=terminal shows every line here)`);
  }
  say(`Platform running: api on ${url} (console at ${url}/; Ctrl-C stops everything)`);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void stopEverything(0));
}
// A closed terminal must not turn the shutdown's own output into a crash.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

main().catch(async (error: unknown) => {
  if (stopping) return;
  if (error instanceof ConfigError) process.stderr.write(`start: configuration error: ${error.message}\n`);
  else if (error instanceof StartFailure || error instanceof EmbeddedPostgresError) {
    if (error.message) process.stderr.write(`start: ${error.message}\n`);
  } else process.stderr.write(`start: ${describeStartupFailure(error)}\n`);
  await stopEverything(1);
});
