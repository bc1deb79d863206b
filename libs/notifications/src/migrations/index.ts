import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000300_notifications } from './Migration20261122000300_notifications';
import { Migration20261125004000_notification_emails } from './Migration20261125004000_notification_emails';
import { Migration20261205000200_notification_email_jobs } from './Migration20261205000200_notification_email_jobs';

export const notificationsMigrations: MigrationObject[] = [
  { name: 'Migration20261122000300_notifications', class: Migration20261122000300_notifications },
  { name: 'Migration20261125004000_notification_emails', class: Migration20261125004000_notification_emails },
  { name: 'Migration20261205000200_notification_email_jobs', class: Migration20261205000200_notification_email_jobs },
];
