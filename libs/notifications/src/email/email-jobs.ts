import { Type } from '@sinclair/typebox';
import { defineProcedure, type JobQueue } from '@mrp/platform';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createEvent } from '@mrp/events';
import { emailAddressesOf } from '@mrp/authz';
import type { SendEmail } from './smtp-sender';

/** What the email jobs' principal (`system:send-notification-emails`) holds, and nothing else does. */
export const SEND_NOTIFICATION_EMAILS = 'system.send-notification-emails';

/** The queue of email sends: one job per attempt, created in the transaction that made the email (or recorded its failure). */
export const EMAIL_QUEUE = 'notification-emails';

/** What an email job carries. */
export interface EmailJob {
  notificationId: string;
  /** The notification's organization, if any: workers share their slots among organizations. */
  organizationId: string | null;
  [key: string]: unknown;
}

/** Attempts per email; after the last failure it is `failed`. */
export const MAX_EMAIL_ATTEMPTS = 5;
/** Error text kept and reported, at most. */
const MAX_ERROR_LENGTH = 500;

interface PendingEmail {
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

/** Queues the first attempt of each email, in the transaction of `em` that created their rows. */
export async function enqueueEmails(jobs: JobQueue, em: EntityManager, emails: readonly EmailJob[]): Promise<void> {
  await jobs.enqueueMany(em, EMAIL_QUEUE, emails.map((data) => ({ data })));
}

/**
 * `notifications.emails.send`, what an email job runs: one attempt at one email, unless it is no
 * longer pending (sent, failed for good, or its recipient's notification gone). The email is read
 * and sent outside the procedure's transaction, so no transaction stays open while SMTP answers;
 * its outcome is recorded in the transaction, with `notification.delivery-failed` per failed
 * attempt and, when it will be retried, the next attempt's job, due after 1, 4, 16 or 64 minutes.
 */
export function createSendEmailProcedure(sendEmail: SendEmail | undefined, jobs: JobQueue | undefined) {
  return defineProcedure({
    name: 'notifications.emails.send',
    summary: 'Makes one attempt at sending the email of a notification, retrying a failure with backoff',
    scope: 'system',
    permission: SEND_NOTIFICATION_EMAILS,
    input: Type.Object({ notificationId: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
    output: Type.Object({ processed: Type.Integer({ minimum: 0, maximum: 1 }) }),
    async handler(ctx, { notificationId }) {
      // Without SMTP nothing is queued: there is nothing to do.
      if (!sendEmail || !jobs) return { processed: 0 };
      const [email] = await ctx.em.getConnection().execute<PendingEmail[]>(
        `SELECT e.user_id, e.organization_id, e.attempts, n.title, n.body
           FROM notification_emails e JOIN notifications n ON n.id = e.notification_id
          WHERE e.notification_id = ? AND e.status = 'pending'`,
        [notificationId],
      );
      if (!email) return { processed: 0 };
      const address = (await emailAddressesOf(ctx.em, [email.user_id])).get(email.user_id);
      if (!address) {
        // Deleted since (or a service account): there is no one to write to, and no one to tell.
        await ctx.em.execute(`UPDATE notification_emails SET status = 'failed', last_error = ? WHERE notification_id = ? AND status = 'pending'`, [
          'The recipient can no longer be emailed',
          notificationId,
        ]);
        return { processed: 1 };
      }
      const attempt = email.attempts + 1;
      try {
        await sendEmail({ to: address, subject: email.title, text: email.body ?? email.title });
      } catch (caught) {
        const error = errorText(caught);
        const willRetry = attempt < MAX_EMAIL_ATTEMPTS;
        // Guarded by the attempt read: a second run of the same attempt (a job retried after its worker seemed dead) records nothing.
        const recorded = await ctx.em.execute<Array<{ notification_id: string }>>(
          `UPDATE notification_emails
              SET attempts = ?, last_error = ?, status = ?,
                  next_attempt_at = CASE WHEN ? THEN now() + make_interval(mins => ?) ELSE next_attempt_at END
            WHERE notification_id = ? AND status = 'pending' AND attempts = ?
            RETURNING notification_id`,
          [attempt, error, willRetry ? 'pending' : 'failed', willRetry, retryDelayMinutes(attempt), notificationId, email.attempts],
        );
        if (recorded.length === 0) return { processed: 1 };
        if (willRetry) {
          const next: EmailJob = { notificationId, organizationId: email.organization_id };
          await jobs.enqueue(ctx.em, EMAIL_QUEUE, next, { delaySeconds: retryDelayMinutes(attempt) * 60 });
        }
        ctx.emit(
          createEvent(
            'notification.delivery-failed',
            { notificationId, userId: email.user_id, channel: 'email', error, attempt, willRetry },
            { userId: email.user_id, ...(email.organization_id ? { organizationId: email.organization_id } : {}) },
          ),
        );
        return { processed: 1 };
      }
      await ctx.em.execute(
        `UPDATE notification_emails SET status = 'sent', attempts = ?, sent_at = now(), last_error = NULL WHERE notification_id = ? AND status = 'pending'`,
        [attempt, notificationId],
      );
      return { processed: 1 };
    },
  });
}
