export { createEvent, recordEventAliases } from './catalog/create-event';
export { InProcessEventBus } from './bus/in-process-event-bus';
export { createEventDispatcher, type EventPersister } from './bus/event-dispatcher';
export { eventsModule } from './events-module';
export { createEndpointProcedures } from './webhooks/endpoints/endpoint-procedures';
export { createWebhookOutbox } from './webhooks/deliveries/webhook-outbox';
export { createRecordAttemptsProcedure } from './webhooks/deliveries/record-attempts';
export { DeliveryWorker } from './webhooks/worker/delivery-worker';
export { claimDueDeliveries } from './webhooks/deliveries/delivery-queue';
export { listenForDueDeliveries } from './webhooks/worker/due-delivery-signals';
export {
  builtInSecretResolver,
  createAddressPolicy,
  createWebhookSender,
  verifyWebhookSignature,
  WebhookVerificationError,
  type HostLookup,
  type WebhookSecretResolver,
  type WebhookSender,
} from './webhooks/security-placeholder';
