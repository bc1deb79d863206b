import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventDispatcher, EventEnvelope } from '@mrp/platform';
import type { InProcessEventBus } from './in-process-event-bus';

/** Writes events durably inside the emitting transaction (e.g. the webhook outbox). */
export interface EventPersister {
  persist(em: EntityManager, events: readonly EventEnvelope[]): Promise<void>;
}

export function createEventDispatcher(bus: InProcessEventBus, persisters: readonly EventPersister[] = []): EventDispatcher {
  return {
    async persist(em, events) {
      for (const persister of persisters) await persister.persist(em, events);
    },
    publish(events) {
      bus.publish(events);
    },
  };
}
