import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000300_notifications } from './Migration20261122000300_notifications';
import { Migration20261125004000_notification_emails } from './Migration20261125004000_notification_emails';

export const notificationsMigrations: MigrationObject[] = [
  { name: 'Migration20261122000300_notifications', class: Migration20261122000300_notifications },
  { name: 'Migration20261125004000_notification_emails', class: Migration20261125004000_notification_emails },
];
