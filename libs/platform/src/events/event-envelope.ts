import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The automation runs behind an event: the run whose work emitted it, and the chain of automations
 * that led to it, oldest first (its length is the chain depth). Automations use it to stop loops.
 */
export interface EventCause {
  automationRunId: string;
  automationChain: string[];
}

/**
 * How the change behind an event came in, when a door says so (`via: "mcp"` for the Model Context
 * Protocol server), so automations and webhook receivers can tell an agent's writes apart.
 */
export interface EventMetadata {
  via: string;
}

/** The event shape of DESIGN 8; the typed catalog of `type`/`payload` pairs lives in the events lib. */
export interface EventEnvelope<TType extends string = string, TPayload = unknown> {
  id: string;
  type: TType;
  occurredAt: string;
  correlationId?: string;
  subscriptionAliases?: string[];
  organizationId?: string;
  userId?: string;
  /** Present when an automation run caused the event. */
  causedBy?: EventCause;
  /** Present when the door the change came through marks its events (see EventMetadata). */
  metadata?: EventMetadata;
  /**
   * On events about a record: the roles its record is restricted to (empty: none). Never sent to
   * receivers; webhooks deliver the event only to endpoints whose principal may read the record.
   */
  recordAccess?: { roleIds: readonly string[] };
  payload: TPayload;
}

/** What an emitter supplies; id, time, correlation id, cause and metadata are stamped on emit. */
export type PendingEvent<TType extends string = string, TPayload = unknown> = Omit<
  EventEnvelope<TType, TPayload>,
  'id' | 'occurredAt' | 'correlationId' | 'causedBy' | 'metadata'
>;

/**
 * Receives the events of a unit of work. `persist` runs inside the change's transaction (the
 * durable webhook outbox) and answers the events to publish: the given ones and any that follow
 * from them (a card event derived from a record event), persisted with them. `publish` runs after
 * commit (the best-effort in-process bus) with what `persist` answered.
 */
export interface EventDispatcher {
  persist(em: EntityManager, events: readonly EventEnvelope[]): Promise<readonly EventEnvelope[]>;
  publish(events: readonly EventEnvelope[]): void;
}

export const noopEventDispatcher: EventDispatcher = {
  persist: async (_em, events) => events,
  publish: () => undefined,
};
