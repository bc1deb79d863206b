import type { PlatformModule } from '@mrp/platform';
import { notificationsMigrations } from './migrations';
import { Notification } from './notifications/notification.entity';

export const notificationsModule: PlatformModule = {
  name: 'notifications',
  entities: [Notification],
  migrations: notificationsMigrations,
  // platform: the job queue's schema.
  requiresTablesOf: ['platform', 'authz'],
};
