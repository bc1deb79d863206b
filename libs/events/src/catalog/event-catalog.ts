/**
 * Every event type the platform emits, with its payload. Emitters build events through
 * `createEvent`, so a type and its payload cannot drift apart.
 */
export interface EventCatalog {
  'user.profile-updated': { userId: string; changes: string[] };
  'user.email-changed': { userId: string; previousEmail: string; email: string };
  'user.deletion-requested': { userId: string; scheduledFor: string };
  'user.deletion-canceled': { userId: string };
  'user.disabled': { userId: string; disabledBy: string };
  'user.enabled': { userId: string; enabledBy: string };
  /**
   * The account is gone: a person's requested deletion completed when its grace period ended
   * (`deletedBy` is the person), or an administrator deleted a service account.
   */
  'user.deleted': { userId: string; deletedBy: string };

  'organization.created': { organizationId: string; name: string; slug: string; createdBy: string };
  'organization.updated': { organizationId: string; changes: string[] };
  'organization.member-joined': { organizationId: string; userId: string; roleKeys: string[] };
  'organization.member-removed': { organizationId: string; userId: string; removedBy: string };
  'organization.invite-sent': { organizationId: string; inviteId: string; email: string; roleKeys: string[]; invitedBy: string };
  'organization.invite-accepted': { organizationId: string; inviteId: string; userId: string };

  'rbac.role-assigned': { organizationId: string; roleId: string; roleKey: string; userId: string; assignedBy: string };
  'rbac.role-revoked': { organizationId: string; roleId: string; roleKey: string; userId: string; revokedBy: string };
  'rbac.role-created': { organizationId: string; roleId: string; roleKey: string; permissions: string[] };
  'rbac.role-updated': { organizationId: string; roleId: string; roleKey: string; changes: string[] };
  'rbac.role-deleted': { organizationId: string; roleId: string; roleKey: string };

  'notification.created': { notificationId: string; userId: string; kind: string; title: string };
  'notification.delivery-failed': { notificationId: string; userId: string; channel: string; error: string; attempt: number; willRetry: boolean };

  'automation.created': { automationId: string; organizationId: string; name: string };
  'automation.updated': { automationId: string; organizationId: string; changes: string[] };
  'automation.deleted': { automationId: string; organizationId: string };
  'automation.run-started': { automationId: string; runId: string; trigger: string };
  'automation.run-succeeded': { automationId: string; runId: string; durationMs: number };
  'automation.run-failed': { automationId: string; runId: string; error: string };

  /** A board is a view over a model: its columns are the options of one SELECT field (`fieldKey`). */
  'kanban.board-created': { boardId: string; name: string; modelKey: string; fieldKey: string };
  /** `columnId` is the new SELECT option's value, `name` its label. */
  'kanban.column-created': { boardId: string; columnId: string; name: string };
  /** A card is a record of the board's model with a value in its field; `cardId` is the record id. */
  'kanban.card-created': { boardId: string; columnId: string; cardId: string; title: string; modelKey: string };
  /** `changes`: the record's changed fields, other than the board's own. */
  'kanban.card-updated': { boardId: string; cardId: string; changes: string[]; modelKey: string };
  /** Equal columns: the card changed place within its column (kanban.cards.move). */
  'kanban.card-moved': { boardId: string; cardId: string; fromColumnId: string; toColumnId: string; modelKey: string };
  'kanban.card-deleted': { boardId: string; cardId: string; modelKey: string };
  'kanban.card-assigned': { boardId: string; cardId: string; assigneeUserId: string; assignedBy: string };

  'feature-flag.flipped': { key: string; enabled: boolean; previous: boolean; flippedBy: string };

  'webhook.endpoint-disabled-after-failures': {
    endpointId: string;
    url: string;
    consecutiveFailures: number;
    lastError: string;
  };

  'data-models.record-created': { modelKey: string; recordId: string; record: Record<string, unknown> };
  'data-models.record-updated': {
    modelKey: string;
    recordId: string;
    changedFields: string[];
    record: Record<string, unknown>;
    /** The values the changed fields had before (null: empty); present on updates, absent on a restore. */
    previous?: Record<string, unknown>;
  };
  'data-models.record-deleted': { modelKey: string; recordId: string; hard: boolean };
  /** A field change rewrote stored values (a type change converting them, formulas recomputed) of `count` records; no record events are emitted for those. */
  'data-models.field-values-rewritten': { modelKey: string; fieldKey: string; count: number };
}

export type EventType = keyof EventCatalog;

/** The types a subscriber can name; kept in sync with the catalog by the `satisfies` below. */
export const EVENT_TYPES = [
  'user.profile-updated',
  'user.email-changed',
  'user.deletion-requested',
  'user.deletion-canceled',
  'user.disabled',
  'user.enabled',
  'user.deleted',
  'organization.created',
  'organization.updated',
  'organization.member-joined',
  'organization.member-removed',
  'organization.invite-sent',
  'organization.invite-accepted',
  'rbac.role-assigned',
  'rbac.role-revoked',
  'rbac.role-created',
  'rbac.role-updated',
  'rbac.role-deleted',
  'notification.created',
  'notification.delivery-failed',
  'automation.created',
  'automation.updated',
  'automation.deleted',
  'automation.run-started',
  'automation.run-succeeded',
  'automation.run-failed',
  'kanban.board-created',
  'kanban.column-created',
  'kanban.card-created',
  'kanban.card-updated',
  'kanban.card-moved',
  'kanban.card-deleted',
  'kanban.card-assigned',
  'feature-flag.flipped',
  'webhook.endpoint-disabled-after-failures',
  'data-models.record-created',
  'data-models.record-updated',
  'data-models.record-deleted',
  'data-models.field-values-rewritten',
] as const satisfies readonly EventType[];

// Fails to compile when the catalog gains a type the list above does not name.
type MissingFromList = Exclude<EventType, (typeof EVENT_TYPES)[number]>;
const listIsComplete: MissingFromList extends never ? true : never = true;
void listIsComplete;
