import { JobQueueMigration } from '@mrp/platform';

/**
 * Emails are sent by jobs of the `notification-emails` queue; `notification_emails` stays their
 * log. Each email still pending gets its job, due when its row says; the claim's index goes.
 */
export class Migration20261205000200_notification_email_jobs extends JobQueueMigration {
  override async up(): Promise<void> {
    await this.createJobQueues([
      // Retries here are for a worker that died or a database error; a refused email is retried by the handler itself.
      { name: 'notification-emails', policy: 'standard', retryLimit: 5, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds: 300 },
    ]);
    const pending = await this.execute(
      `SELECT notification_id, organization_id, GREATEST(0, ceil(extract(epoch FROM next_attempt_at - now())))::int AS delay
         FROM notification_emails WHERE status = 'pending'`,
    );
    if (pending.length > 0) {
      await this.jobQueue().insert(
        pending.map((row) => ({
          name: 'notification-emails',
          data: { notificationId: row.notification_id as string, organizationId: (row.organization_id as string | null) ?? null },
          startAfter: String(row.delay),
        })),
      );
    }
    this.addSql('DROP INDEX notification_emails_due');
  }

  override async down(): Promise<void> {
    this.addSql(`CREATE INDEX notification_emails_due ON notification_emails (next_attempt_at) WHERE status = 'pending'`);
    await this.deleteJobQueues(['notification-emails']);
  }
}
