export { EVENT_TYPES, type EventCatalog, type EventType } from './catalog/event-catalog';
export { createEvent, recordEventAliases, type CatalogEvent, type EventScope } from './catalog/create-event';
export { InProcessEventBus, type EventHandler } from './bus/in-process-event-bus';
export { createEventDispatcher, type EventPersister } from './bus/event-dispatcher';
export { eventMatches, patternMatchesType, SUBSCRIPTION_PATTERN } from './bus/subscription-pattern';
export { eventsModule } from './events-module';
export { createJobQueue, ensureQueues, QUEUES, JOB_QUEUE_SCHEMA, type JobQueueOptions } from './queue/job-queue';
