import type { EventEnvelope, PendingEvent } from '@mrp/platform';
import type { EventCatalog, EventType } from './event-catalog';

export type CatalogEvent<T extends EventType = EventType> = EventEnvelope<T, EventCatalog[T]>;

export interface EventScope {
  organizationId?: string;
  userId?: string;
  subscriptionAliases?: string[];
  /** An event about a record: the roles the record is restricted to (empty: none); see EventEnvelope. */
  recordAccess?: { roleIds: readonly string[] };
}

/** Builds an event whose payload is checked against the catalog at compile time. */
export function createEvent<T extends EventType>(
  type: T,
  payload: EventCatalog[T],
  scope: EventScope = {},
): PendingEvent<T, EventCatalog[T]> {
  return {
    type,
    payload,
    ...(scope.organizationId ? { organizationId: scope.organizationId } : {}),
    ...(scope.userId ? { userId: scope.userId } : {}),
    ...(scope.subscriptionAliases?.length ? { subscriptionAliases: scope.subscriptionAliases } : {}),
    ...(scope.recordAccess ? { recordAccess: { roleIds: [...scope.recordAccess.roleIds] } } : {}),
  };
}

/** A per-model record type: `data-models.<model key>.record-created|updated|deleted`. */
export const RECORD_EVENT_ALIAS = /^data-models\.[a-z][a-z0-9_]{0,62}\.record-(created|updated|deleted)$/;

/** The per-model aliases record events carry, so webhooks can subscribe to one model's changes. */
export function recordEventAliases(modelKey: string, action: 'created' | 'updated' | 'deleted'): string[] {
  return [`data-models.${modelKey}.record-${action}`];
}
