import { ConfigError } from '@mrp/platform';
import type { ScheduledTask } from './scheduled-tasks';
import { resolveTaskSchedules, scheduleVariable } from './task-schedules';

const task = (name: string, schedule: string): ScheduledTask => ({ name, schedule, description: name, run: async () => 0 });
const TASKS = [task('send-calendar-reminders', '* * * * *'), task('prune-webhook-deliveries', '17 * * * *')];

function schedules(overrides: Record<string, string>): Array<[string, string | null]> {
  return resolveTaskSchedules(TASKS, overrides).map(({ task: { name }, schedule }) => [name, schedule]);
}

describe('resolveTaskSchedules', () => {
  it('names the variable of a task in upper snake case', () => {
    expect(scheduleVariable('send-calendar-reminders')).toBe('CRON_SCHEDULE_SEND_CALENDAR_REMINDERS');
  });

  it("keeps each task's default schedule when no variable overrides it", () => {
    expect(schedules({})).toEqual([
      ['send-calendar-reminders', '* * * * *'],
      ['prune-webhook-deliveries', '17 * * * *'],
    ]);
  });

  it('takes a 5-field override, and off (any case) as not run here', () => {
    expect(schedules({ CRON_SCHEDULE_SEND_CALENDAR_REMINDERS: '*/5 * * * *', CRON_SCHEDULE_PRUNE_WEBHOOK_DELIVERIES: 'OFF' })).toEqual([
      ['send-calendar-reminders', '*/5 * * * *'],
      ['prune-webhook-deliveries', null],
    ]);
  });

  it.each([
    ['* * * * * *', 'CRON_SCHEDULE_SEND_CALENDAR_REMINDERS must be a 5-field cron expression (minute hour day month weekday) or off, got "* * * * * *": it has 6 fields'],
    ['@hourly', 'CRON_SCHEDULE_SEND_CALENDAR_REMINDERS must be a 5-field cron expression (minute hour day month weekday) or off, got "@hourly": it has 1 field'],
    ['every minute', 'CRON_SCHEDULE_SEND_CALENDAR_REMINDERS must be a 5-field cron expression (minute hour day month weekday) or off, got "every minute": it has 2 fields'],
    ['61 * * * *', 'CRON_SCHEDULE_SEND_CALENDAR_REMINDERS must be a 5-field cron expression (minute hour day month weekday) or off, got "61 * * * *": Invalid value for minute: 61'],
    ['x y z a b', 'CRON_SCHEDULE_SEND_CALENDAR_REMINDERS must be a 5-field cron expression (minute hour day month weekday) or off, got "x y z a b": configuration entry 1 (x) contains illegal characters.'],
  ])('refuses %j in one line naming the variable', (expression, line) => {
    const resolve = () => resolveTaskSchedules(TASKS, { CRON_SCHEDULE_SEND_CALENDAR_REMINDERS: expression });
    expect(resolve).toThrow(ConfigError);
    expect(resolve).toThrow(line);
  });

  it('refuses a variable that names no task, naming it and the known ones', () => {
    expect(() => resolveTaskSchedules(TASKS, { CRON_SCHEDULE_SEND_REMINDERS: '* * * * *' })).toThrow(
      new ConfigError('CRON_SCHEDULE_SEND_REMINDERS names no scheduled task (known: CRON_SCHEDULE_SEND_CALENDAR_REMINDERS, CRON_SCHEDULE_PRUNE_WEBHOOK_DELIVERIES)'),
    );
  });
});
