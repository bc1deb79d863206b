import { hostname } from 'node:os';
import { Cron } from 'croner';
import { createTaskSlotClaims, slotMinute, type TaskSlotClaims } from '@mrp/platform';
import type { Runtime, ScheduledTask, TaskSchedule } from '@mrp/runtime';

export type SlotOutcome = 'ran' | 'failed' | 'skipped';

export interface Scheduler {
  /**
   * Runs `task` for the slot (the minute) `firedAt` belongs to, unless another scheduler on the
   * database claimed that slot first. The cron trigger calls it; tests call it directly.
   */
  runSlot(task: ScheduledTask, firedAt: Date): Promise<SlotOutcome>;
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  /** Defaults to claims in the runtime's database, under this host and process id. */
  claims?: TaskSlotClaims;
  /** False builds the scheduler without starting its timers (tests drive runSlot). */
  startTimers?: boolean;
}

/**
 * Runs every scheduled task on its schedule (UTC). A task never overlaps itself in one process,
 * and a slot claimed by another cron-runner is skipped; a failed run is logged and the next
 * slot tries again, other tasks are not affected.
 */
export function startScheduler(runtime: Runtime, schedules: readonly TaskSchedule[], options: SchedulerOptions = {}): Scheduler {
  const claims = options.claims ?? createTaskSlotClaims(runtime.orm, `${hostname()}:${process.pid}`);
  const running = new Set<Promise<SlotOutcome>>();

  async function attempt(task: ScheduledTask, slot: Date): Promise<SlotOutcome> {
    const startedAt = Date.now();
    try {
      if (!(await claims.claim(task.name, slot))) {
        runtime.logger.debug({ task: task.name, slot }, 'task slot claimed elsewhere, skipped');
        return 'skipped';
      }
      const processed = await task.run(runtime);
      runtime.logger.info({ task: task.name, processed, durationMs: Date.now() - startedAt, slot }, 'task ran');
      return 'ran';
    } catch (error) {
      runtime.logger.error({ err: error, task: task.name, durationMs: Date.now() - startedAt, slot }, 'task failed');
      return 'failed';
    }
  }

  const scheduler: Scheduler = {
    async runSlot(task, firedAt) {
      const run = attempt(task, slotMinute(firedAt));
      running.add(run);
      try {
        return await run;
      } finally {
        running.delete(run);
      }
    },
    async stop() {
      jobs.forEach((job) => job.stop());
      await Promise.all(running);
    },
  };

  const jobs =
    options.startTimers === false
      ? []
      : schedules.flatMap(({ task, schedule }) =>
          schedule === null
            ? []
            : [
                new Cron(schedule, { timezone: 'UTC', protect: true }, async (job: Cron) => {
                  // croner's current run is the moment it fired for this tick: its minute is the slot.
                  await scheduler.runSlot(task, job.currentRun() ?? new Date());
                }),
              ],
        );
  return scheduler;
}
