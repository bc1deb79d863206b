import type { Runtime } from './runtime';

/**
 * The scheduled tasks. The cron-runner runs them on `schedule`; the api serves each at
 * `/cron/<name>` as a fallback trigger for platforms that bring their own scheduler.
 */
export interface ScheduledTask {
  name: string;
  /** Cron expression (seconds field optional), evaluated in UTC. */
  schedule: string;
  description: string;
  /** Returns how many items it processed. */
  run(runtime: Runtime): Promise<number>;
}

export function scheduledTasks(): ScheduledTask[] {
  return [];
}
