export { createEvent, recordEventAliases } from './catalog/create-event';
export { EVENT_TYPES, type EventCatalog, type EventType } from './catalog/event-catalog';
export { InProcessEventBus } from './bus/in-process-event-bus';
export { createEventDispatcher } from './bus/event-dispatcher';
export { eventsModule } from './events-module';
export { createJobQueue, ensureQueues } from './queue/job-queue';
