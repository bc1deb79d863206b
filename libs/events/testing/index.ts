export {
  createWebhookTestBed,
  TEST_JOB_EXPIRY_SECONDS,
  type AttemptFixture,
  type DeliveryFixture,
  type WebhookTestBed,
} from './webhook-fixtures';
