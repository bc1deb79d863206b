export {
  createNotificationsHarness,
  insertServiceAccount,
  OPERATOR_EMAIL,
  type NotificationsHarness,
  type NotificationsHarnessOptions,
} from './notifications-harness';
export { startSmtpTestServer, type ReceivedEmail, type SmtpTestServer } from './smtp-test-server';
