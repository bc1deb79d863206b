import { JobQueueMigration, type QueueDefinition } from '@mrp/platform';

/**
 * One queue per scheduled task, which pg-boss's schedule fills with one job per slot. Stately: one
 * run at a time across every cron-runner and one waiting, so a slow run makes later slots wait or
 * drop, never overlap. A run whose runner died is run again when it expires (twice at most).
 */
const TASKS = [
  'process-account-deletions',
  'prune-rate-limit-buckets',
  'prune-idempotent-requests',
  'sweep-webhook-deliveries',
  'prune-webhook-deliveries',
  'run-automation-schedules',
  'send-calendar-reminders',
  'retry-field-indexes',
];

const queues: QueueDefinition[] = TASKS.map((task) => ({
  name: `task.${task}`,
  policy: 'stately',
  retryLimit: 2,
  retryDelaySeconds: 0,
  expireInSeconds: 900,
}));

export class Migration20261205000300_scheduled_task_queues extends JobQueueMigration {
  override async up(): Promise<void> {
    await this.createJobQueues(queues);
  }

  override async down(): Promise<void> {
    await this.deleteJobQueues(queues.map((queue) => queue.name));
  }
}
