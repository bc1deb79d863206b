export { createEvent, recordEventAliases } from './catalog/create-event';
export { EVENT_TYPES, type EventCatalog, type EventType } from './catalog/event-catalog';
export { listEventTypes } from './catalog/event-type-procedures';
export { InProcessEventBus } from './bus/in-process-event-bus';
export { createEventDispatcher, type EventDeriver, type EventPersister } from './bus/event-dispatcher';
export { eventsModule } from './events-module';
export * from './receiver';
export { createEndpointProcedures } from './webhooks/endpoints/endpoint-procedures';
export { createWebhookOutbox, webhookDeliveryStatements, type WebhookOutbox, type ReaderAccess } from './webhooks/deliveries/webhook-outbox';
export { createRecordAttemptsProcedure, WEBHOOK_DELIVERY_PERMISSION } from './webhooks/deliveries/record-attempts';
export {
  DELIVERY_JOB_EXPIRY_SECONDS,
  DELIVERY_LEASE_SECONDS,
  DELIVERY_QUEUES,
  claimDeliveries,
  deliveryQueueName,
  mayGoNowSql,
  sequenceDeliveries,
} from './webhooks/deliveries/delivery-queue';
export { DeliveryWorker, type DeliveryJobs, type RecordedAttempts } from './webhooks/worker/delivery-worker';
export { listenForWakeSignals, type WakeSignals } from './bus/wake-signals';
export { createWakeNotifier, type WakeNotifier } from './bus/wake-notifier';
export { ROUTES_CHANGED_CHANNEL, RouteCache, type RouteCacheOptions } from './bus/route-cache';
export { listenForRouteChanges } from './bus/route-change-listener';
export { eventMatches, SUBSCRIPTION_PATTERN } from './bus/subscription-pattern';
export { subscriptionProblem } from './webhooks/endpoints/subscriptions';
export { builtInSecretResolver, type WebhookSecretResolver } from './webhooks/secrets/secret-resolver';
export { createAddressPolicy } from './webhooks/url-safety/address-policy';
export type { HostLookup } from './webhooks/url-safety/host-lookup';
export { createWebhookSender, type WebhookSender } from './webhooks/url-safety/webhook-sender';
export { createDeliveryLogProcedures, type DeliveryLogProcedureDeps } from './webhooks/deliveries/delivery-log-procedures';
export { DEFAULT_WEBHOOK_RETENTION_DAYS, PRUNE_WEBHOOK_DELIVERIES, pruneWebhookDeliveries } from './webhooks/deliveries/prune-deliveries';
