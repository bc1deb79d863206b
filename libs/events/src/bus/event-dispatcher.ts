import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventDispatcher, EventEnvelope } from '@mrp/platform';
import type { InProcessEventBus } from './in-process-event-bus';

/** Writes events durably inside the emitting transaction (e.g. the webhook outbox). */
export interface EventPersister {
  persist(em: EntityManager, events: readonly EventEnvelope[]): Promise<void>;
  /** Told, synchronously, of the events of a transaction that committed, before the emitter goes on. */
  committed?(events: readonly EventEnvelope[]): void;
}

/**
 * Makes the events that follow from others (a kanban card event from a record event), inside the
 * emitting transaction, where it may also keep its own rows in step. Derived events are stamped
 * like their source (correlation id, cause) and are not derived from again.
 */
export interface EventDeriver {
  derive(em: EntityManager, events: readonly EventEnvelope[]): Promise<EventEnvelope[]>;
}

/**
 * The process's dispatcher: derivers first, then every persister sees the emitted and the derived
 * events (the outboxes route both alike), and the bus hears them all after commit.
 */
export function createEventDispatcher(
  bus: InProcessEventBus,
  persisters: readonly EventPersister[] = [],
  derivers: readonly EventDeriver[] = [],
): EventDispatcher {
  return {
    async persist(em, events) {
      let all = events;
      for (const deriver of derivers) {
        const derived = await deriver.derive(em, events);
        if (derived.length > 0) all = [...all, ...derived];
      }
      for (const persister of persisters) await persister.persist(em, all);
      return all;
    },
    publish(events) {
      for (const persister of persisters) persister.committed?.(events);
      bus.publish(events);
    },
  };
}
