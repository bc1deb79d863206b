import { Cron } from 'croner';

/** Why a schedule cannot run, or null: a 5-field cron expression (minute precision) in an IANA time zone. */
export function scheduleProblem(cron: string, timezone: string): { field: 'cron' | 'timezone'; message: string } | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    return { field: 'timezone', message: `"${timezone}" is not an IANA time zone (e.g. Europe/Paris, UTC)` };
  }
  if (cron.trim().split(/\s+/).length !== 5) {
    return { field: 'cron', message: 'must have 5 fields: minute hour day-of-month month day-of-week' };
  }
  try {
    const job = new Cron(cron, { timezone, paused: true });
    const next = job.nextRun();
    job.stop();
    if (!next) return { field: 'cron', message: 'never fires' };
  } catch (error) {
    return { field: 'cron', message: `is not a valid cron expression: ${(error as Error).message}` };
  }
  return null;
}

/** The first slot of the schedule strictly after `after`. */
export function nextSlot(cron: string, timezone: string, after: Date): Date | null {
  const job = new Cron(cron, { timezone, paused: true });
  try {
    return job.nextRun(after);
  } finally {
    job.stop();
  }
}
