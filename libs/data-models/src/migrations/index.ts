import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000400_data_models } from './Migration20261122000400_data_models';

export const dataModelsMigrations: MigrationObject[] = [
  { name: 'Migration20261122000400_data_models', class: Migration20261122000400_data_models },
];
