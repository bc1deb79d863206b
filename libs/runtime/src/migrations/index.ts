import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261205000300_scheduled_task_queues } from './Migration20261205000300_scheduled_task_queues';

export const runtimeMigrations: MigrationObject[] = [
  { name: 'Migration20261205000300_scheduled_task_queues', class: Migration20261205000300_scheduled_task_queues },
];
