import type { MigrationObject } from '@mikro-orm/core';
import { collectMigrations, orderModules, type PlatformModule } from './migration-order';

function migration(name: string): MigrationObject {
  return { name, class: class {} as MigrationObject['class'] };
}

function module(name: string, migrations: string[], requiresTablesOf?: string[]): PlatformModule {
  return { name, entities: [], migrations: migrations.map(migration), requiresTablesOf };
}

describe('collectMigrations', () => {
  it('applies a module after the modules it requires, whatever the timestamps say', () => {
    const users = module('users', ['Migration2_users', 'Migration9_user_flags']);
    const orders = module('orders', ['Migration1_orders', 'Migration5_order_lines'], ['users']);
    expect(collectMigrations([orders, users]).map((entry) => entry.name)).toEqual([
      'Migration2_users',
      'Migration9_user_flags',
      'Migration1_orders',
      'Migration5_order_lines',
    ]);
  });

  it('keeps the given order between modules that require nothing of each other', () => {
    expect(orderModules([module('b', []), module('a', [])]).map((entry) => entry.name)).toEqual(['b', 'a']);
  });

  it('refuses a requirement on a module that is not included', () => {
    expect(() => collectMigrations([module('orders', [], ['users'])])).toThrow(
      'Module orders requires the tables of users, which is not included',
    );
  });

  it('refuses modules that require each other', () => {
    expect(() => orderModules([module('a', [], ['b']), module('b', [], ['a'])])).toThrow(
      "Modules require each other's tables in a cycle: a -> b -> a",
    );
  });

  it('refuses two migrations with one name', () => {
    expect(() => collectMigrations([module('a', ['Migration1_x']), module('b', ['Migration1_x'])])).toThrow(
      'Duplicate migration name Migration1_x',
    );
  });
});
