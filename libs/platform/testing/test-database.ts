import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createOrm, migrateToLatest, type CreateOrmOptions, type Orm } from '../src/database/orm';
import { startEmbeddedPostgres } from '../dev';
import type { PlatformModule } from '../src/database/migration-order';
import { freePort } from '../src/net/free-port';

/**
 * Test databases: one PostgreSQL server per Jest run (embedded unless DATABASE_URL is set),
 * one migrated template database per run, and one database per test file cloned from it
 * (`CREATE DATABASE ... TEMPLATE`), so files run in parallel without sharing rows.
 * With DATABASE_POOLER=transaction, DATABASE_URL is a transaction pooler in front of
 * DATABASE_DIRECT_URL: databases are made on PostgreSQL itself, and what the tests run goes
 * through the pooler, as a deployment behind one would.
 */

const ADMIN_URL_ENV = 'TEST_DB_ADMIN_URL';
const POOLER_URL_ENV = 'TEST_DB_POOLER_URL';
const TEMPLATE_ENV = 'TEST_DB_TEMPLATE';
const RUN_ENV = 'TEST_DB_RUN_ID';

interface ServerState {
  stop?: () => Promise<void>;
}
const serverState = globalThis as typeof globalThis & { __testDatabaseServer?: ServerState };

export function databaseUrl(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdminClient<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Jest globalSetup: start the server and build the migrated template database. */
export async function setupTestDatabaseServer(modules: readonly PlatformModule[]): Promise<void> {
  const pooled = process.env.DATABASE_POOLER === 'transaction';
  if (pooled && !(process.env.DATABASE_URL && process.env.DATABASE_DIRECT_URL)) {
    throw new Error('DATABASE_POOLER=transaction needs DATABASE_URL (the pooler) and DATABASE_DIRECT_URL (PostgreSQL itself)');
  }
  let adminUrl = pooled ? process.env.DATABASE_DIRECT_URL : process.env.DATABASE_URL;
  if (!adminUrl) {
    // A folder of ours holds the data folder and its password; open to the postgres user (as root).
    const home = mkdtempSync(join(tmpdir(), 'mrp-test-pg-'));
    chmodSync(home, 0o755);
    const embedded = await startEmbeddedPostgres({ dataDir: join(home, 'data'), port: await freePort(), database: 'postgres', persistent: false });
    adminUrl = embedded.adminUrl;
    serverState.__testDatabaseServer = {
      stop: async () => {
        await embedded.stop();
        rmSync(home, { recursive: true, force: true });
      },
    };
  } else {
    serverState.__testDatabaseServer = {};
  }
  const runId = randomBytes(4).toString('hex');
  const template = `tpl_${runId}`;
  await withAdminClient(adminUrl, (client) => client.query(`CREATE DATABASE ${template}`));
  const orm = await createOrm({ databaseUrl: databaseUrl(adminUrl, template), modules, poolSize: 2 });
  try {
    await migrateToLatest(orm);
  } finally {
    await orm.close(true);
  }
  process.env[ADMIN_URL_ENV] = adminUrl;
  if (pooled) process.env[POOLER_URL_ENV] = process.env.DATABASE_URL;
  process.env[TEMPLATE_ENV] = template;
  process.env[RUN_ENV] = runId;
}

/** Jest globalTeardown: drop what this run created and stop the embedded server. */
export async function teardownTestDatabaseServer(): Promise<void> {
  const adminUrl = process.env[ADMIN_URL_ENV];
  const runId = process.env[RUN_ENV];
  if (adminUrl && runId) {
    await withAdminClient(adminUrl, async (client) => {
      const { rows } = await client.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2`,
        [`tpl_${runId}`, `t_${runId}_%`],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    });
  }
  await serverState.__testDatabaseServer?.stop?.();
}

/** What an app is configured with to use a test database (an app process's environment, or loadConfig's). */
export interface TestDatabaseEnv {
  DATABASE_URL: string;
  DATABASE_POOLER: 'none' | 'transaction';
  DATABASE_DIRECT_URL: string;
}

export interface TestDatabase {
  /** What the apps connect to: the pooler when the run has one, else PostgreSQL itself. */
  url: string;
  /** PostgreSQL itself: for a test's own session work (LISTEN, pg_stat_activity, session settings). */
  directUrl: string;
  /** `DATABASE_URL`, `DATABASE_POOLER` and `DATABASE_DIRECT_URL` for this database (all three: an inherited one never leaks in). */
  env: TestDatabaseEnv;
  /** The ORM options that match `env`. */
  ormOptions: Pick<CreateOrmOptions, 'databaseUrl' | 'pooler' | 'directUrl'>;
  adminUrl: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  return createDatabase('migrated');
}

/** A fresh database with no tables at all, on the same server: for tests of the migrations themselves. */
export async function createEmptyTestDatabase(): Promise<TestDatabase> {
  return createDatabase('empty');
}

async function createDatabase(content: 'migrated' | 'empty'): Promise<TestDatabase> {
  const adminUrl = process.env[ADMIN_URL_ENV];
  const template = process.env[TEMPLATE_ENV];
  const runId = process.env[RUN_ENV];
  if (!adminUrl || !template || !runId) {
    throw new Error('No test database server: is the jest globalSetup of this project configured?');
  }
  // Named like every database of the run, so the run's teardown drops it even if a test did not.
  const name = `t_${runId}_${randomBytes(6).toString('hex')}`;
  const createSql = content === 'migrated' ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`;
  await withAdminClient(adminUrl, (client) => client.query(createSql));
  const poolerUrl = process.env[POOLER_URL_ENV];
  const directUrl = databaseUrl(adminUrl, name);
  const url = poolerUrl ? databaseUrl(poolerUrl, name) : directUrl;
  const pooler = poolerUrl ? 'transaction' : 'none';
  return {
    url,
    directUrl,
    env: { DATABASE_URL: url, DATABASE_POOLER: pooler, DATABASE_DIRECT_URL: directUrl },
    ormOptions: { databaseUrl: url, pooler, directUrl },
    adminUrl,
    drop: () => withAdminClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

export interface TestOrm {
  orm: Orm;
  database: TestDatabase;
  close(): Promise<void>;
}

/** `options` as createOrm's (a statement timeout, a pool size...); a pool of 5 unless given. */
export async function createTestOrm(modules: readonly PlatformModule[], options: Partial<Omit<CreateOrmOptions, 'databaseUrl' | 'modules'>> = {}): Promise<TestOrm> {
  const database = await createTestDatabase();
  const orm = await createOrm({ ...database.ormOptions, modules, poolSize: 5, ...options });
  return {
    orm,
    database,
    close: async () => {
      await orm.close(true);
      await database.drop();
    },
  };
}
