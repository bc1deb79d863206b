export { createEvent, recordEventAliases } from './catalog/create-event';
export { InProcessEventBus } from './bus/in-process-event-bus';
export { createEventDispatcher } from './bus/event-dispatcher';
export { eventsModule } from './events-module';
export { createJobQueue, ensureQueues } from './queue/job-queue';
export * from './receiver';
export { signWebhookPayload, type SignWebhookPayloadInput } from './webhooks/signature/sign-webhook-payload';
export { WEBHOOK_HEADERS } from './webhooks/signature/webhook-headers';
export { generateEndpointSecret, hashEndpointSecret } from './webhooks/secrets/endpoint-secret';
export { encryptEndpointSecret } from './webhooks/secrets/secret-encryption';
export {
  builtInSecretResolver,
  resolveSigningSecrets,
  type EndpointSecrets,
  type StoredEndpointSecret,
  type WebhookSecretResolver,
} from './webhooks/secrets/secret-resolver';
export {
  createAddressPolicy,
  type AddressPolicy,
  type AddressPolicyMode,
  type AddressPolicyOptions,
} from './webhooks/url-safety/address-policy';
export { checkEndpointUrl, type CheckEndpointUrlOptions } from './webhooks/url-safety/check-endpoint-url';
export type { HostLookup, ResolvedAddress } from './webhooks/url-safety/host-lookup';
export {
  createWebhookSender,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookSender,
  type WebhookSenderOptions,
} from './webhooks/url-safety/webhook-sender';
export { WebhookSendError, type WebhookSendErrorKind } from './webhooks/url-safety/webhook-send-error';
