/**
 * `npm run migrate`: applies the committed migrations of every module to DATABASE_URL (to
 * DATABASE_DIRECT_URL when set: a migration needs PostgreSQL itself, not a pooler), or to the
 * embedded PostgreSQL under .data/ when DATABASE_URL is unset.
 */
import { ConfigError, createOrm, directDatabaseUrl, loadConfig, migrateToLatest } from '@mrp/platform';
import { EmbeddedPostgresError } from '@mrp/platform/dev';
import { ALL_MODULES, describeStartupFailure } from '@mrp/runtime';
import { withDatabase } from './local-database';

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
  const applied = await withDatabase('npm run migrate', { ...config, databaseUrl: directDatabaseUrl(config) }, migrateDatabase);
  console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Database is up to date');
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const line =
      error instanceof ConfigError ? `configuration error: ${error.message}` : error instanceof EmbeddedPostgresError ? error.message : describeStartupFailure(error);
    process.stderr.write(`migrate: ${line}\n`);
    process.exit(1);
  });
}
