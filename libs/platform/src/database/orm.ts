import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { DirectPgDriver } from './direct-pg-driver';
import { collectMigrations, type PlatformModule } from './platform-module';

export type Orm = MikroORM;

export interface CreateOrmOptions {
  databaseUrl: string;
  modules: readonly PlatformModule[];
  poolSize?: number;
  debug?: boolean;
}

export function ormOptions({ databaseUrl, modules, poolSize = 10, debug = false }: CreateOrmOptions): Options {
  return {
    // Raw SQL and transactions straight on `pg` (see DirectPgConnection); everything else is MikroORM's own.
    driver: DirectPgDriver,
    clientUrl: databaseUrl,
    entities: modules.flatMap((module) => module.entities),
    extensions: [Migrator],
    migrations: {
      migrationsList: collectMigrations(modules),
      tableName: 'schema_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
    // Every request, job and task forks its own EntityManager; touching the global one is a bug.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug,
    pool: { min: 0, max: poolSize },
    discovery: { warnWhenNoEntities: false },
  };
}

export async function createOrm(options: CreateOrmOptions): Promise<Orm> {
  return MikroORM.init(ormOptions(options));
}

export async function migrateToLatest(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((migration) => migration.name);
}
