import { newId, type JobQueue } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { notifiableUserIds, userIdsByVerifiedEmail, type NotificationMessage, type NotificationScope, type UserNotifier } from '@mrp/authz';
import { sqlTextArray } from '@mrp/platform';
import { enqueueEmails } from '../email/email-jobs';

export interface NotifierOptions {
  /** PLATFORM_ADMIN_EMAILS: the operators who hear about platform trouble (e.g. failing webhooks). */
  platformAdminEmails: ReadonlySet<string>;
  /** SMTP is configured: each notification's email is recorded and its job queued here (the email jobs send it). */
  emailJobs?: JobQueue;
}

export interface CreatedNotification {
  id: string;
  userId: string;
}

export interface Notifier extends UserNotifier {
  /**
   * One notification per live HUMAN recipient, written in the caller's transaction, each with a
   * `notification.created` event. Service accounts, deleted and unknown users are skipped, whatever
   * the caller passes: authz's `notifiableUserIds` decides, not a convention callers must remember.
   */
  notify(scope: NotificationScope, userIds: readonly string[], message: NotificationMessage): Promise<CreatedNotification[]>;
  /** Notifies the platform admins (users whose email is in PLATFORM_ADMIN_EMAILS). */
  notifyOperators(scope: NotificationScope, message: NotificationMessage): Promise<CreatedNotification[]>;
}

const MAX_TITLE_LENGTH = 500;

function assertMessage(message: NotificationMessage): void {
  if (!message.kind?.trim()) throw new Error('A notification needs a kind');
  if (!message.title?.trim()) throw new Error('A notification needs a title');
  if (message.title.length > MAX_TITLE_LENGTH) throw new Error(`A notification title is at most ${MAX_TITLE_LENGTH} characters`);
}

export function createNotifier(options: NotifierOptions): Notifier {
  const operatorEmails = [...options.platformAdminEmails].map((email) => email.toLowerCase());

  /**
   * `user` routing: the event goes where events about its recipient go (the message's organization,
   * or else each of the recipient's organizations). `platform`: only to platform-wide endpoints.
   */
  async function notifyRouted(scope: NotificationScope, userIds: readonly string[], message: NotificationMessage, routing: 'user' | 'platform') {
    assertMessage(message);
    const recipients = await notifiableUserIds(scope.em, [...new Set(userIds)]);
    if (recipients.length === 0) return [];
    const created = await scope.em.execute<Array<{ id: string; user_id: string }>>(
      `INSERT INTO notifications (id, user_id, kind, title, body, data)
       SELECT n.id, n.user_id, ?, ?, ?, ?::jsonb
         FROM unnest(?::uuid[], ?::text[]) AS n(id, user_id)
       RETURNING id, user_id`,
      [
        message.kind,
        message.title,
        message.body ?? null,
        JSON.stringify(message.data ?? {}),
        sqlTextArray(recipients.map(() => newId())),
        sqlTextArray(recipients),
      ],
    );
    if (options.emailJobs) {
      const organizationId = routing === 'platform' ? null : (message.organizationId ?? null);
      await scope.em.execute(
        `INSERT INTO notification_emails (notification_id, user_id, organization_id)
         SELECT n.id, n.user_id, ?::uuid FROM unnest(?::uuid[], ?::text[]) AS n(id, user_id)`,
        [organizationId, sqlTextArray(created.map((row) => row.id)), sqlTextArray(created.map((row) => row.user_id))],
      );
      await enqueueEmails(options.emailJobs, scope.em, created.map((row) => ({ notificationId: row.id, organizationId })));
    }
    const notifications = created
      .map((row) => ({ id: row.id, userId: row.user_id }))
      .sort((a, b) => a.id.localeCompare(b.id));
    for (const notification of notifications) {
      scope.emit(
        createEvent(
          'notification.created',
          { notificationId: notification.id, userId: notification.userId, kind: message.kind, title: message.title },
          routing === 'platform' ? {} : { userId: notification.userId, organizationId: message.organizationId },
        ),
      );
    }
    return notifications;
  }

  const notify = (scope: NotificationScope, userIds: readonly string[], message: NotificationMessage) => notifyRouted(scope, userIds, message, 'user');

  // An operator's notice is platform business: it must not reach the webhooks of the organizations the operator belongs to.
  async function notifyOperators(scope: NotificationScope, message: NotificationMessage) {
    if (operatorEmails.length === 0) return [];
    return notifyRouted(scope, await userIdsByVerifiedEmail(scope.em, operatorEmails), message, 'platform');
  }

  return { notify, notifyOperators };
}
