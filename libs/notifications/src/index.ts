export { notificationsModule } from './notifications-module';
export { createNotifier, type Notifier } from './notifier/notifier';
export { createNotificationProcedures } from './inbox/inbox-procedures';
export { createSendNotificationProcedure } from './sending/send-procedure';
export { createSendDueEmailsProcedure, SEND_NOTIFICATION_EMAILS } from './email/send-due-emails';
export { createSmtpSender, type SendEmail, type SmtpSender, type EmailMessage } from './email/smtp-sender';
