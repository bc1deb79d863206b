import type { EntityManager } from '@mikro-orm/postgresql';
import type { PendingEvent } from '@mrp/platform';

/** Where a notification is written: the caller's transaction and its event queue (a ProcedureContext fits). */
export interface NotificationScope {
  em: EntityManager;
  emit(event: PendingEvent): void;
}

export interface NotificationMessage {
  /** Dotted, e.g. `rbac.role-assigned`; lets the front end pick an icon and a link. */
  kind: string;
  title: string;
  body?: string;
  data?: Record<string, unknown>;
  /**
   * The organization the notification is about, if any. Its `notification.created` event is then
   * that organization's, so it never reaches the webhooks of the recipient's other organizations.
   */
  organizationId?: string;
}

/**
 * What authz needs from the notifications lib, which depends on authz and so cannot be imported
 * here. `createNotifier` of `@mrp/notifications` implements it.
 */
export interface UserNotifier {
  notify(scope: NotificationScope, userIds: readonly string[], message: NotificationMessage): Promise<unknown>;
}
