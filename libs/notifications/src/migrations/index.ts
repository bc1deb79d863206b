import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000300_notifications } from './Migration20261122000300_notifications';

export const notificationsMigrations: MigrationObject[] = [
  { name: 'Migration20261122000300_notifications', class: Migration20261122000300_notifications },
];
