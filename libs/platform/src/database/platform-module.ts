import type { EntitySchema, MigrationObject } from '@mikro-orm/core';

/**
 * A lib's contribution to the database: the entities it maps and the migrations that create
 * their tables. Apps and test setups compose the modules they need into one ORM.
 */
export interface PlatformModule {
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entities: EntitySchema<any, any>[];
  migrations: MigrationObject[];
}

/** Migrations of all modules in name (timestamp) order, so cross-module foreign keys apply in sequence. */
export function collectMigrations(modules: readonly PlatformModule[]): MigrationObject[] {
  const all = modules.flatMap((module) => module.migrations);
  const names = new Set<string>();
  for (const migration of all) {
    if (names.has(migration.name)) throw new Error(`Duplicate migration name ${migration.name}`);
    names.add(migration.name);
  }
  return all.sort((a, b) => a.name.localeCompare(b.name));
}
