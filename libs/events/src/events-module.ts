import type { PlatformModule } from '@mrp/platform';
import { eventsMigrations } from './migrations';

export const eventsModule: PlatformModule = {
  name: 'events',
  entities: [],
  migrations: eventsMigrations,
};
