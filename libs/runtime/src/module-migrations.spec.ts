import { createOrm, migrateToLatest, orderModules, type PlatformModule } from '@mrp/platform';
import { createEmptyTestDatabase } from '@mrp/platform/testing';
import { ALL_MODULES } from './modules';

/** The modules a module's migrations may touch: itself and, transitively, what it declares. */
function withRequirements(module: PlatformModule): PlatformModule[] {
  const byName = new Map(ALL_MODULES.map((candidate) => [candidate.name, candidate]));
  const needed = new Set<string>();
  const add = (name: string): void => {
    if (needed.has(name)) return;
    needed.add(name);
    for (const required of byName.get(name)?.requiresTablesOf ?? []) add(required);
  };
  add(module.name);
  return ALL_MODULES.filter((candidate) => needed.has(candidate.name));
}

describe('migration order between libs', () => {
  it('applies every module after the modules whose tables it declares it requires', () => {
    const order = orderModules(ALL_MODULES).map((module) => module.name);
    for (const module of ALL_MODULES) {
      for (const required of module.requiresTablesOf ?? []) {
        expect(order.indexOf(required)).toBeLessThan(order.indexOf(module.name));
      }
    }
  });

  // A module whose migrations reference a table of a lib it does not declare fails here, on an
  // empty database holding nothing but what it declared.
  it.each(ALL_MODULES.map((module) => [module.name, module] as const))(
    'migrates %s on an empty database with only the modules it declares',
    async (_name, module) => {
      const database = await createEmptyTestDatabase();
      const orm = await createOrm({ databaseUrl: database.directUrl, modules: withRequirements(module), poolSize: 1 });
      try {
        const applied = await migrateToLatest(orm);
        expect(applied).toEqual(expect.arrayContaining(module.migrations.map((migration) => migration.name)));
      } finally {
        await orm.close(true);
        await database.drop();
      }
    },
  );
});
