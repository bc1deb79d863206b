import { Cron } from 'croner';
import type { Runtime, ScheduledTask } from '@mrp/runtime';

export interface Scheduler {
  stop(): Promise<void>;
}

/**
 * Runs every task on its schedule (UTC). A task never overlaps itself; a failed run is logged
 * and the next tick tries again.
 */
export function startScheduler(runtime: Runtime, tasks: readonly ScheduledTask[]): Scheduler {
  const running = new Set<Promise<unknown>>();
  const jobs = tasks.map(
    (task) =>
      new Cron(task.schedule, { timezone: 'UTC', protect: true, name: task.name }, async () => {
        const startedAt = Date.now();
        const run = task.run(runtime).then(
          (processed) => runtime.logger.info({ task: task.name, processed, durationMs: Date.now() - startedAt }, 'task ran'),
          (error: unknown) => runtime.logger.error({ err: error, task: task.name }, 'task failed'),
        );
        running.add(run);
        await run;
        running.delete(run);
      }),
  );
  return {
    async stop() {
      jobs.forEach((job) => job.stop());
      await Promise.all(running);
    },
  };
}
