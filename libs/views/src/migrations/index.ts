import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261127001000_views } from './Migration20261127001000_views';
import { Migration20261204100000_grid_views } from './Migration20261204100000_grid_views';
import { Migration20261208000400_board_route_change_shared } from './Migration20261208000400_board_route_change_shared';

export const viewsMigrations: MigrationObject[] = [
  { name: 'Migration20261127001000_views', class: Migration20261127001000_views },
  { name: 'Migration20261204100000_grid_views', class: Migration20261204100000_grid_views },
  { name: 'Migration20261208000400_board_route_change_shared', class: Migration20261208000400_board_route_change_shared },
];
