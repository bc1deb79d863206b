export { createEvent, recordEventAliases } from './catalog/create-event';
export { InProcessEventBus } from './bus/in-process-event-bus';
export { createEventDispatcher } from './bus/event-dispatcher';
export { eventsModule } from './events-module';
export { createDeliveryLogProcedures, type DeliveryLogProcedureDeps } from './webhooks/deliveries/delivery-log-procedures';
export { DEFAULT_WEBHOOK_RETENTION_DAYS, PRUNE_WEBHOOK_DELIVERIES, pruneWebhookDeliveries } from './webhooks/deliveries/prune-deliveries';
export { createJobQueue, ensureQueues } from './queue/job-queue';
