import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261127001000_views } from './Migration20261127001000_views';
import { Migration20261204100000_grid_views } from './Migration20261204100000_grid_views';

export const viewsMigrations: MigrationObject[] = [
  { name: 'Migration20261127001000_views', class: Migration20261127001000_views },
  { name: 'Migration20261204100000_grid_views', class: Migration20261204100000_grid_views },
];
