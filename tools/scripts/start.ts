/**
 * `npm start`: the whole platform on one machine. Without DATABASE_URL it starts the embedded
 * PostgreSQL (data under .data/), applies migrations, seeds a demo organization, then runs the
 * api, webhook-worker and cron-runner as separate processes, exactly as they are deployed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '@mrp/platform';
import { loadOrCreateDevSecrets } from './dev-secrets';
import { migrateDatabase } from './migrate';
import { seedDemo } from './seed-demo';

const APPS = ['api', 'webhook-worker', 'cron-runner'] as const;

// Children run in their own process groups: a Ctrl-C reaches the launcher only, which stops the
// apps first and the database last.
function startApp(app: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join('apps', app, 'src', 'main.ts')], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
}

function startEmbeddedDatabase(env: NodeJS.ProcessEnv): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join('tools', 'scripts', 'embedded-database-process.ts')], {
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { url: string }) => resolve({ url: message.url, process: child }));
    child.once('exit', (code) => reject(new Error(`the embedded PostgreSQL exited (code ${code})`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

let database: ChildProcess | undefined;

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (!env.DATABASE_URL) {
    const embedded = await startEmbeddedDatabase(env);
    database = embedded.process;
    env.DATABASE_URL = embedded.url;
    console.log(`Embedded PostgreSQL running (data in .data/postgres): ${embedded.url}`);
  }
  if (env.NODE_ENV !== 'production') {
    const secrets = loadOrCreateDevSecrets(join('.data', 'dev-secrets.json'));
    env.AUTH_JWT_SECRET ??= env.AUTH_JWKS_URL ? undefined : secrets.authJwtSecret;
    env.CRON_SECRET ??= secrets.cronSecret;
    env.CURSOR_SECRET ??= secrets.cursorSecret;
    env.FEATURE_FLAGS ??= 'public-api.enabled=true';
    env.PLATFORM_ADMIN_EMAILS ??= 'admin@demo.example';
  }
  const config = loadConfig(env, { requireSessionAuth: true });

  const applied = await migrateDatabase(env.DATABASE_URL);
  console.log(applied.length ? `Applied ${applied.length} migration(s)` : 'Database schema is up to date');
  await seedDemo(config);

  const children = APPS.map((app) => ({ app, child: startApp(app, env) }));
  let stopping = false;
  const stopAll = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(children.map(({ child }) => stopChild(child)));
    if (database) await stopChild(database);
    process.exit(exitCode);
  };
  for (const { app, child } of children) {
    child.once('exit', (code, signal) => {
      if (stopping) return;
      console.error(`${app} exited (${signal ?? `code ${code}`}); stopping the platform`);
      void stopAll(1);
    });
  }
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));
  console.log(`Platform starting: api on http://localhost:${config.port} (Ctrl-C stops everything)`);
}

main().catch(async (error: unknown) => {
  console.error(`start: ${error instanceof Error ? error.message : String(error)}`);
  if (database) await stopChild(database);
  process.exit(1);
});
