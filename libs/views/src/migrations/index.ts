import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261127001000_views } from './Migration20261127001000_views';

export const viewsMigrations: MigrationObject[] = [{ name: 'Migration20261127001000_views', class: Migration20261127001000_views }];
