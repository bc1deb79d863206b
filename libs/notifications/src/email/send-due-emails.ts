import { Type } from '@sinclair/typebox';
import { defineProcedure, type AnyProcedure } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { emailAddressesOf } from '@mrp/authz';
import type { SendEmail } from './smtp-sender';

/** What the `send-notification-emails` task's principal holds, and nothing else does. */
export const SEND_NOTIFICATION_EMAILS = 'system.send-notification-emails';

/** Attempts per email; after the last failure it is `failed`. */
export const MAX_EMAIL_ATTEMPTS = 5;
/** Emails one run sends at most: a run stays short, the next minute's run takes the rest. */
const BATCH_SIZE = 20;
/** A claimed email is nobody else's this long: longer than a batch can take with every send timing out. */
const LEASE_SECONDS = 15 * 60;
/** Error text kept and reported, at most. */
const MAX_ERROR_LENGTH = 500;

interface ClaimedEmail {
  notification_id: string;
  user_id: string;
  organization_id: string | null;
  attempts: number;
  title: string;
  body: string | null;
}

/** Minutes before the next attempt after `attempt` failed: 1, 4, 16, 64. */
export function retryDelayMinutes(attempt: number): number {
  return 4 ** (attempt - 1);
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_ERROR_LENGTH) || 'Unknown error';
}

/**
 * `notifications.emails.sendDue`, the `send-notification-emails` task. The claim commits on its
 * own, before any email goes out: it moves next_attempt_at a lease ahead, so another run (or this
 * one, should it die) leaves those emails alone while they are being sent. Each outcome is then
 * recorded in the procedure's transaction, with `notification.delivery-failed` per failed attempt.
 */
export function createSendDueEmailsProcedure(sendEmail: SendEmail | undefined): AnyProcedure {
  return defineProcedure({
    name: 'notifications.emails.sendDue',
    summary: 'Emails the notifications whose email is due, retrying failures with backoff',
    scope: 'system',
    permission: SEND_NOTIFICATION_EMAILS,
    input: Type.Object({}, { additionalProperties: false }),
    output: Type.Object({ processed: Type.Integer({ minimum: 0 }) }),
    async handler(ctx) {
      // Without SMTP nothing is queued: there is nothing to do.
      if (!sendEmail) return { processed: 0 };
      // Outside the procedure's transaction on purpose: the lease must be visible to other runs while we send.
      const claimed = await ctx.em.getConnection().execute<ClaimedEmail[]>(
        `WITH claimed AS (
           UPDATE notification_emails SET next_attempt_at = now() + make_interval(secs => ?)
            WHERE notification_id IN (
              SELECT notification_id FROM notification_emails
               WHERE status = 'pending' AND next_attempt_at <= now()
               ORDER BY next_attempt_at, notification_id
               LIMIT ? FOR UPDATE SKIP LOCKED)
           RETURNING notification_id, user_id, organization_id, attempts)
         SELECT c.notification_id, c.user_id, c.organization_id, c.attempts, n.title, n.body
           FROM claimed c JOIN notifications n ON n.id = c.notification_id
          ORDER BY c.notification_id`,
        [LEASE_SECONDS, BATCH_SIZE],
      );
      if (claimed.length === 0) return { processed: 0 };
      const addresses = await emailAddressesOf(ctx.em, [...new Set(claimed.map((email) => email.user_id))]);

      for (const email of claimed) {
        const address = addresses.get(email.user_id);
        if (!address) {
          // Deleted since (or a service account): there is no one to write to, and no one to tell.
          await ctx.em.execute(`UPDATE notification_emails SET status = 'failed', last_error = ? WHERE notification_id = ?`, [
            'The recipient can no longer be emailed',
            email.notification_id,
          ]);
          continue;
        }
        const attempt = email.attempts + 1;
        try {
          await sendEmail({ to: address, subject: email.title, text: email.body ?? email.title });
          await ctx.em.execute(
            `UPDATE notification_emails SET status = 'sent', attempts = ?, sent_at = now(), last_error = NULL WHERE notification_id = ?`,
            [attempt, email.notification_id],
          );
        } catch (caught) {
          const error = errorText(caught);
          const willRetry = attempt < MAX_EMAIL_ATTEMPTS;
          await ctx.em.execute(
            `UPDATE notification_emails
                SET attempts = ?, last_error = ?, status = ?,
                    next_attempt_at = CASE WHEN ? THEN now() + make_interval(mins => ?) ELSE next_attempt_at END
              WHERE notification_id = ?`,
            [attempt, error, willRetry ? 'pending' : 'failed', willRetry, retryDelayMinutes(attempt), email.notification_id],
          );
          ctx.emit(
            createEvent(
              'notification.delivery-failed',
              { notificationId: email.notification_id, userId: email.user_id, channel: 'email', error, attempt, willRetry },
              { userId: email.user_id, ...(email.organization_id ? { organizationId: email.organization_id } : {}) },
            ),
          );
        }
      }
      return { processed: claimed.length };
    },
  });
}
