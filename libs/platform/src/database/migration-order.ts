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
  /**
   * Modules whose tables this module's migrations reference (foreign keys). Their migrations are
   * applied first; nothing else orders one module's migrations against another's.
   */
  requiresTablesOf?: readonly string[];
}

/**
 * The modules in the order their migrations apply: every module after the modules it declares in
 * `requiresTablesOf`, otherwise in the order given. A missing or circular requirement is an error.
 */
export function orderModules(modules: readonly PlatformModule[]): PlatformModule[] {
  const byName = new Map<string, PlatformModule>();
  for (const module of modules) {
    if (byName.has(module.name)) throw new Error(`Duplicate module ${module.name}`);
    byName.set(module.name, module);
  }
  const ordered: PlatformModule[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (module: PlatformModule, path: readonly string[]): void => {
    if (state.get(module.name) === 'done') return;
    if (state.get(module.name) === 'visiting') {
      throw new Error(`Modules require each other's tables in a cycle: ${[...path, module.name].join(' -> ')}`);
    }
    state.set(module.name, 'visiting');
    for (const required of module.requiresTablesOf ?? []) {
      const dependency = byName.get(required);
      if (!dependency) throw new Error(`Module ${module.name} requires the tables of ${required}, which is not included`);
      visit(dependency, [...path, module.name]);
    }
    state.set(module.name, 'done');
    ordered.push(module);
  };
  for (const module of modules) visit(module, []);
  return ordered;
}

/** Migrations of all modules, module by module in `orderModules` order, each module's in name order. */
export function collectMigrations(modules: readonly PlatformModule[]): MigrationObject[] {
  const names = new Set<string>();
  return orderModules(modules).flatMap((module) =>
    [...module.migrations]
      // By code point: the same order whatever the machine's locale (localeCompare's is not).
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((migration) => {
        if (names.has(migration.name)) throw new Error(`Duplicate migration name ${migration.name}`);
        names.add(migration.name);
        return migration;
      }),
  );
}
