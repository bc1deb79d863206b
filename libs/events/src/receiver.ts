/*
 * What a webhook receiver needs, and nothing that reaches the database: runs in Node and in browsers.
 * Import it as `@mrp/events/receiver`.
 */
export { verifyWebhookSignature, type ReceivedHeaders, type VerifyWebhookOptions, type WebhookEvent } from './webhooks/signature/verify-webhook-signature';
export { WebhookVerificationError, type WebhookVerificationFailure } from './webhooks/signature/webhook-verification-error';
