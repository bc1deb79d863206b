import type { EventDispatcher, EventEnvelope } from '../src/events/event-envelope';

/** Keeps what units of work persisted (in their transaction) and published (after commit), in order. */
export class RecordingEventDispatcher implements EventDispatcher {
  persisted: EventEnvelope[] = [];
  published: EventEnvelope[] = [];

  async persist(_em: unknown, events: readonly EventEnvelope[]): Promise<readonly EventEnvelope[]> {
    this.persisted.push(...events);
    return events;
  }

  publish(events: readonly EventEnvelope[]): void {
    this.published.push(...events);
  }

  ofType(type: string): EventEnvelope[] {
    return this.published.filter((event) => event.type === type);
  }

  clear(): void {
    this.persisted = [];
    this.published = [];
  }
}
