import { join, resolve } from 'node:path';
import type { PlatformConfig } from '@mrp/platform';
import { EmbeddedPostgresError, embeddedDatabaseUrl, startEmbeddedPostgres } from '@mrp/platform/dev';
import { acquireLocalDataLock, localDataDir } from './local-data-lock';

const WORKSPACE_ROOT = resolve(__dirname, '..', '..');

/**
 * Runs `work` against DATABASE_URL, or, when it is unset, against the checkout's embedded
 * PostgreSQL: the one `npm start` runs, else one started for the command and stopped after it.
 */
export async function withDatabase<T>(command: string, config: PlatformConfig, work: (databaseUrl: string) => Promise<T>): Promise<T> {
  if (config.databaseUrl) return work(config.databaseUrl);
  const dataDir = localDataDir(process.env, WORKSPACE_ROOT);
  const taken = acquireLocalDataLock(dataDir, command);
  if ('heldBy' in taken) {
    const { pid, command: holder, embeddedPostgres } = taken.heldBy;
    if (embeddedPostgres) return work(embeddedDatabaseUrl(embeddedPostgres));
    throw new EmbeddedPostgresError(`${holder} is using the embedded database (pid ${pid}): wait for it to finish, or set DATABASE_URL`);
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
