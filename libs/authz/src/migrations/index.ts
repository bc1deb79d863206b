import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000200_identity } from './Migration20261122000200_identity';

export const authzMigrations: MigrationObject[] = [
  { name: 'Migration20261122000200_identity', class: Migration20261122000200_identity },
];
