/**
 * `npm run migrate`: applies the committed migrations of every module to DATABASE_URL
 * (or to the embedded PostgreSQL under .data/ when DATABASE_URL is unset).
 */
import { createOrm, loadConfig, migrateToLatest, startEmbeddedPostgres, type EmbeddedDatabase } from '@mrp/platform';
import { ALL_MODULES } from '@mrp/runtime';

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
  let databaseUrl = config.databaseUrl;
  let embedded: EmbeddedDatabase | undefined;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres();
    databaseUrl = embedded.url;
  }
  try {
    const applied = await migrateDatabase(databaseUrl);
    console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Database is up to date');
  } finally {
    await embedded?.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
