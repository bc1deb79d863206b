import type { PlatformModule } from '@mrp/platform';
import { viewsMigrations } from './migrations';

/** Boards, card positions and assignees, calendars: reached through hand-written SQL only, so no entity. */
export const viewsModule: PlatformModule = {
  name: 'views',
  entities: [],
  migrations: viewsMigrations,
  requiresTablesOf: ['platform', 'authz'],
};
