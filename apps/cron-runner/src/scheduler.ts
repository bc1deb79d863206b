import type { Job } from '@mrp/platform';
import { taskQueue, type Runtime, type ScheduledTask, type TaskSchedule } from '@mrp/runtime';

/**
 * How often a cron-runner looks for a task's job. pg-boss's timekeeper creates them (no commit of
 * ours announces them), and a slot is a minute: this bounds how late in its minute a task starts.
 */
const TASK_POLL_SECONDS = 5;

export type TaskOutcome = 'ran' | 'failed';

/**
 * Runs one slot of `task` (its job): logged with its count and duration. A failure is logged and
 * the job completed all the same: the next slot tries again, as a retry would, without piling up.
 * Only a run that never ends (its runner died) is run again, once the job expires.
 */
export async function runTaskJob(runtime: Runtime, task: ScheduledTask, job: Pick<Job, 'id'>): Promise<TaskOutcome> {
  const startedAt = Date.now();
  runtime.logger.debug({ task: task.name, job: job.id }, 'task started');
  try {
    const processed = await task.run(runtime);
    runtime.logger.info({ task: task.name, processed, durationMs: Date.now() - startedAt, job: job.id }, 'task ran');
    return 'ran';
  } catch (error) {
    runtime.logger.error({ err: error, task: task.name, durationMs: Date.now() - startedAt, job: job.id }, 'task failed');
    return 'failed';
  }
}

/**
 * Puts every task's schedule (UTC) in the job queue, shared by every cron-runner of the database
 * (`off` removes it), and makes this process work the tasks' queues once the queue starts.
 * pg-boss turns each slot into one job whatever the number of cron-runners; the task queues are
 * stately, so a task never overlaps itself anywhere.
 */
export async function scheduleTasks(runtime: Runtime, schedules: readonly TaskSchedule[]): Promise<void> {
  // pg-boss gives up on a handler at its job's expiry and fetches the next job while the old run
  // goes on: a task still running here lets such a job go rather than run beside itself.
  const running = new Set<string>();
  for (const { task, schedule } of schedules) {
    const queue = taskQueue(task.name);
    await runtime.jobs.schedule(queue, schedule, { expireInSeconds: runtime.config.taskExpirySeconds });
    await runtime.jobs.work(queue, { concurrency: 1, pollIntervalSeconds: TASK_POLL_SECONDS }, async (job) => {
      if (running.has(task.name)) {
        runtime.logger.warn({ task: task.name, job: job.id }, 'task still running past its expiry here, slot skipped');
        return;
      }
      running.add(task.name);
      try {
        await runTaskJob(runtime, task, job);
      } finally {
        running.delete(task.name);
      }
    });
  }
}
