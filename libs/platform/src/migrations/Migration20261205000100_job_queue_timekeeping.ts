import { JobQueueMigration } from '../queue/job-queue';

/**
 * pg-boss 10 turns schedule slots into jobs through a queue of its own, which its timekeeper
 * creates when it starts if missing: created here, a process never runs DDL when it starts.
 */
export class Migration20261205000100_job_queue_timekeeping extends JobQueueMigration {
  override async up(): Promise<void> {
    // pg-boss's name for it (timekeeper.js, QUEUES.SEND_IT), with pg-boss's defaults for it.
    await this.jobQueue().createQueue('__pgboss__send-it');
  }

  override async down(): Promise<void> {
    await this.deleteJobQueues(['__pgboss__send-it']);
  }
}
