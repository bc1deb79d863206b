import { join, resolve } from 'node:path';
import { EmbeddedPostgresError, startEmbeddedPostgres, type PlatformConfig } from '@mrp/platform';
import { acquireLocalDataLock, localDataDir } from './local-data-lock';

const WORKSPACE_ROOT = resolve(__dirname, '..', '..');

/**
 * Runs `work` against DATABASE_URL, or, when it is unset, against the checkout's embedded
 * PostgreSQL, started for the command and stopped after it. The embedded data is used by one
 * command at a time: while `npm start` runs, the command says so instead of starting a second server.
 */
export async function withDatabase<T>(command: string, config: PlatformConfig, work: (databaseUrl: string) => Promise<T>): Promise<T> {
  if (config.databaseUrl) return work(config.databaseUrl);
  const dataDir = localDataDir(process.env, WORKSPACE_ROOT);
  const taken = acquireLocalDataLock(dataDir, command);
  if ('heldBy' in taken) {
    const { pid, command: holder } = taken.heldBy;
    throw new EmbeddedPostgresError(`${holder} is using the embedded database (pid ${pid}): stop it first, or set DATABASE_URL`);
  }
  try {
    const embedded = await startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres'), port: config.embeddedPostgresPort, replaceLeftoverServer: true });
    try {
      return await work(embedded.url);
    } finally {
      await embedded.stop();
    }
  } finally {
    taken.release();
  }
}
