import { Cron } from 'croner';
import { ConfigError, type PlatformConfig } from '@mrp/platform';
import type { ScheduledTask } from './scheduled-tasks';

const OFF = 'off';

export interface TaskSchedule {
  task: ScheduledTask;
  /** The cron expression the cron-runner uses (UTC), or null when CRON_SCHEDULE_<TASK>=off. */
  schedule: string | null;
}

/** `send-calendar-reminders` -> `CRON_SCHEDULE_SEND_CALENDAR_REMINDERS`. */
export function scheduleVariable(taskName: string): string {
  return `CRON_SCHEDULE_${taskName.toUpperCase().replace(/-/g, '_')}`;
}

function checkedExpression(variable: string, expression: string): string {
  // Five fields only: a seconds field would let one variable run a task 60 times a minute.
  const fields = expression.split(/\s+/);
  const invalid = (reason: string) =>
    new ConfigError(`${variable} must be a 5-field cron expression (minute hour day month weekday) or off, got "${expression}": ${reason}`);
  if (fields.length !== 5) throw invalid(`it has ${fields.length} field${fields.length === 1 ? '' : 's'}`);
  try {
    new Cron(expression, { timezone: 'UTC', paused: true }).stop();
  } catch (error) {
    throw invalid((error as Error).message.replace(/^CronPattern: /, ''));
  }
  return expression;
}

/**
 * Each task's effective schedule: its default, or the CRON_SCHEDULE_<TASK> override. An override
 * naming no task is refused rather than ignored, so a misspelt variable cannot go unnoticed.
 */
export function resolveTaskSchedules(tasks: readonly ScheduledTask[], overrides: PlatformConfig['cronScheduleOverrides']): TaskSchedule[] {
  const known = new Set(tasks.map((task) => scheduleVariable(task.name)));
  const unknown = Object.keys(overrides).find((variable) => !known.has(variable));
  if (unknown) {
    throw new ConfigError(`${unknown} names no scheduled task (known: ${[...known].join(', ')})`);
  }
  return tasks.map((task) => {
    const variable = scheduleVariable(task.name);
    const override = overrides[variable];
    if (override === undefined) return { task, schedule: task.schedule };
    return { task, schedule: override.toLowerCase() === OFF ? null : checkedExpression(variable, override) };
  });
}
