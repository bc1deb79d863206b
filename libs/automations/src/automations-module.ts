import type { PlatformModule } from '@mrp/platform';
import { automationsMigrations } from './migrations';

/** Automations and runs are reached through hand-written SQL only, so they map no entity. */
export const automationsModule: PlatformModule = {
  name: 'automations',
  entities: [],
  migrations: automationsMigrations,
  requiresTablesOf: ['platform', 'authz'],
};
