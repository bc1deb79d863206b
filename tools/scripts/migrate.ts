/**
 * `npm run migrate`: applies the committed migrations of every module to DATABASE_URL
 * (or to the embedded PostgreSQL under .data/ when DATABASE_URL is unset).
 */
import { join, resolve } from 'node:path';
import {
  ConfigError,
  EmbeddedPostgresError,
  createOrm,
  loadConfig,
  migrateToLatest,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from '@mrp/platform';
import { ALL_MODULES, describeStartupFailure } from '@mrp/runtime';
import { acquireLocalDataLock, localDataDir, type LocalDataLock } from './local-data-lock';

export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  const orm = await createOrm({ databaseUrl, modules: ALL_MODULES, poolSize: 2 });
  try {
    return await migrateToLatest(orm);
  } finally {
    await orm.close(true);
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  let lock: LocalDataLock | undefined;
  let embedded: EmbeddedDatabase | undefined;
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const dataDir = localDataDir(process.env, resolve(__dirname, '..', '..'));
      const taken = acquireLocalDataLock(dataDir, 'npm run migrate');
      if ('heldBy' in taken) {
        const { pid, command } = taken.heldBy;
        throw new EmbeddedPostgresError(`${command} is using the embedded database (pid ${pid}); it applies migrations itself, or stop it first`);
      }
      lock = taken;
      embedded = await startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres'), port: config.embeddedPostgresPort, replaceLeftoverServer: true });
      databaseUrl = embedded.url;
    }
    const applied = await migrateDatabase(databaseUrl);
    console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Database is up to date');
  } finally {
    await embedded?.stop();
    lock?.release();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const line =
      error instanceof ConfigError ? `configuration error: ${error.message}` : error instanceof EmbeddedPostgresError ? error.message : describeStartupFailure(error);
    process.stderr.write(`migrate: ${line}\n`);
    process.exit(1);
  });
}
