import type { Job } from '@mrp/platform';
import { EMAIL_QUEUE, SEND_NOTIFICATION_EMAILS, type EmailJob } from '@mrp/notifications';
import { invokeAsSystem } from './invoke-as-system';
import type { Runtime } from './runtime';

/** Emails a process sends at once. */
const EMAIL_CONCURRENCY = 2;

/** One email job: its procedure, as `system:send-notification-emails`; answers 1 when the email was pending. */
export async function runEmailJob(runtime: Runtime, job: Job<EmailJob>): Promise<number> {
  const { processed } = await invokeAsSystem<{ processed: number }>(runtime, {
    task: 'send-notification-emails',
    procedure: 'notifications.emails.send',
    permissions: [SEND_NOTIFICATION_EMAILS],
    input: { notificationId: job.data.notificationId },
  });
  return processed;
}

/**
 * Makes this process send the queued emails once its job queue starts. Without SMTP it takes
 * none: they wait for a process that can send them.
 */
export async function workEmailJobs(runtime: Runtime): Promise<void> {
  if (!runtime.emailSender) return;
  await runtime.jobs.work<EmailJob>(EMAIL_QUEUE, { concurrency: EMAIL_CONCURRENCY }, async (job) => {
    await runEmailJob(runtime, job);
  });
}
