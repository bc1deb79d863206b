import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000500_job_queue } from './Migration20261122000500_job_queue';

export const eventsMigrations: MigrationObject[] = [
  { name: 'Migration20261122000500_job_queue', class: Migration20261122000500_job_queue },
];
