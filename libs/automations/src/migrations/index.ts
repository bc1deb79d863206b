import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261125000100_automations } from './Migration20261125000100_automations';

export const automationsMigrations: MigrationObject[] = [
  { name: 'Migration20261125000100_automations', class: Migration20261125000100_automations },
];
