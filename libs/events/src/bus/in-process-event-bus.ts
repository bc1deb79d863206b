import type { EventEnvelope, Logger } from '@mrp/platform';
import { eventMatches } from './subscription-pattern';

export type EventHandler = (event: EventEnvelope) => void | Promise<void>;

/**
 * Best-effort, in-memory delivery to subscribers of this process: no persistence, no retry.
 * Handlers run after the emitter has moved on; a throwing or rejecting handler is logged and
 * affects neither the emitter nor the other handlers.
 */
export class InProcessEventBus {
  private readonly subscriptions = new Set<{ pattern: string; handler: EventHandler }>();
  private pending = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly logger: Logger) {}

  subscribe(pattern: string, handler: EventHandler): () => void {
    const subscription = { pattern, handler };
    this.subscriptions.add(subscription);
    return () => this.subscriptions.delete(subscription);
  }

  publish(events: readonly EventEnvelope[]): void {
    for (const event of events) {
      for (const { pattern, handler } of this.subscriptions) {
        if (eventMatches(pattern, event)) this.dispatch(event, pattern, handler);
      }
    }
  }

  /** Resolves once every handler started so far has finished (tests and graceful shutdown). */
  async idle(): Promise<void> {
    if (this.pending === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private dispatch(event: EventEnvelope, pattern: string, handler: EventHandler): void {
    this.pending += 1;
    setImmediate(async () => {
      try {
        await handler(event);
      } catch (error) {
        this.logger.error({ err: error, eventId: event.id, eventType: event.type, pattern }, 'event subscriber failed');
      } finally {
        this.pending -= 1;
        if (this.pending === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          waiters.forEach((resolve) => resolve());
        }
      }
    });
  }
}
