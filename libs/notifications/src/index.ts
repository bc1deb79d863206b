export { notificationsModule } from './notifications-module';
export { createNotifier, type Notifier } from './notifier/notifier';
export { createNotificationProcedures } from './inbox/inbox-procedures';
export { createSendNotificationProcedure } from './sending/send-procedure';
