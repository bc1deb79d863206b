export { notificationsModule } from './notifications-module';
export { createNotifier, type Notifier } from './notifier/notifier';
export { createNotificationProcedures } from './inbox/inbox-procedures';
export { createSendNotificationProcedure } from './sending/send-procedure';
export { createSendEmailProcedure, EMAIL_QUEUE, SEND_NOTIFICATION_EMAILS, type EmailJob } from './email/email-jobs';
export { createSmtpSender, type SendEmail, type SmtpSender, type EmailMessage } from './email/smtp-sender';
