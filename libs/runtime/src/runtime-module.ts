import type { PlatformModule } from '@mrp/platform';
import { runtimeMigrations } from './migrations';

/** What the runtime itself keeps in the database: the job queues of the scheduled tasks. */
export const runtimeModule: PlatformModule = {
  name: 'runtime',
  entities: [],
  migrations: runtimeMigrations,
  // platform: the job queue's schema.
  requiresTablesOf: ['platform'],
};
