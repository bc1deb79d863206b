import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createOrm, freePort, migrateToLatest } from '@mrp/platform';
import { ensureDatabase, startEmbeddedPostgres } from '@mrp/platform/dev';
import { ALL_MODULES } from '@mrp/runtime';

export interface ThrowawayDatabase {
  url: string;
  /** Where it runs, for the report. */
  server: string;
  postgresVersion: string;
  /** The embedded server's postmaster, whose children serve only this run; null on the DATABASE_URL server. */
  postmasterPid: number | null;
  drop(): Promise<void>;
}

/**
 * A fresh database with every module's migrations applied: on the server of DATABASE_URL when
 * set, otherwise on an embedded PostgreSQL started for this run and removed afterwards.
 */
export async function createThrowawayDatabase(): Promise<ThrowawayDatabase> {
  let adminUrl = process.env.DATABASE_URL;
  let server = 'the DATABASE_URL server';
  let stopEmbedded: (() => Promise<void>) | undefined;
  let home: string | undefined;
  let dataDir: string | undefined;
  if (!adminUrl) {
    // A folder of ours holds the data folder and its password; open to the postgres user (as root).
    home = mkdtempSync(join(tmpdir(), 'mrp-bench-pg-'));
    chmodSync(home, 0o755);
    const embedded = await startEmbeddedPostgres({ dataDir: join(home, 'data'), port: await freePort(), database: 'postgres', persistent: false });
    dataDir = embedded.dataDir;
    adminUrl = embedded.adminUrl;
    stopEmbedded = embedded.stop;
    server = 'embedded PostgreSQL';
  }
  const name = `bench_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(adminUrl, name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  const orm = await createOrm({ databaseUrl: url.toString(), modules: ALL_MODULES, poolSize: 2 });
  let postgresVersion: string;
  try {
    await migrateToLatest(orm);
    const [row] = await orm.em.fork().execute<Array<{ server_version: string }>>('SHOW server_version');
    postgresVersion = row.server_version;
  } finally {
    await orm.close(true);
  }

  return {
    url: url.toString(),
    server,
    postgresVersion,
    // The first line of postmaster.pid is the postmaster's pid.
    postmasterPid: dataDir ? Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) : null,
    async drop() {
      const admin = new Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
      await stopEmbedded?.();
      if (home) rmSync(home, { recursive: true, force: true });
    },
  };
}
