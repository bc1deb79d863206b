import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventDispatcher, EventEnvelope } from '@mrp/platform';
import type { InProcessEventBus } from './in-process-event-bus';

/** Writes events durably inside the emitting transaction (e.g. the webhook outbox). */
export interface EventPersister {
  persist(em: EntityManager, events: readonly EventEnvelope[]): Promise<void>;
  /** Told, synchronously, of the events of a transaction that committed, before the emitter goes on. */
  committed?(events: readonly EventEnvelope[]): void;
}

export function createEventDispatcher(bus: InProcessEventBus, persisters: readonly EventPersister[] = []): EventDispatcher {
  return {
    async persist(em, events) {
      for (const persister of persisters) await persister.persist(em, events);
    },
    publish(events) {
      for (const persister of persisters) persister.committed?.(events);
      bus.publish(events);
    },
  };
}
