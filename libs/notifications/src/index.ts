export { notificationsModule } from './notifications-module';
export { Notification } from './notifications/notification.entity';
export { createNotifier, type Notifier, type NotifierOptions, type CreatedNotification } from './notifier/notifier';
export {
  createNotificationProcedures,
  NotificationViewSchema,
  type NotificationView,
} from './inbox/inbox-procedures';
