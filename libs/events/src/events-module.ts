import type { PlatformModule } from '@mrp/platform';
import { eventsMigrations } from './migrations';

export const eventsModule: PlatformModule = {
  name: 'events',
  entities: [],
  migrations: eventsMigrations,
  // The delivery jobs' queues live in pg-boss's schema, which platform's migrations make.
  requiresTablesOf: ['platform'],
};
