import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100_feature_flags } from './Migration20261122000100_feature_flags';

export const platformMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100_feature_flags', class: Migration20261122000100_feature_flags },
];
