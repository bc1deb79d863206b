import { Cron } from 'croner';
import type { TriggerType, TriggerView } from '../api/automation-types';
import { subscriptionProblem } from '../webhooks/subscription-patterns';

export interface TriggerFormValues {
  type: TriggerType;
  cron: string;
  timezone: string;
  eventType: string;
  includeOwnRuns: boolean;
}

/** The trigger of `automations.create`: only the properties of its type (the server refuses others). */
export type TriggerInput =
  | { type: 'http' }
  | { type: 'schedule'; cron: string; timezone: string }
  | { type: 'event'; eventType: string; includeOwnRuns: boolean };

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function emptyTrigger(): TriggerFormValues {
  return { type: 'event', cron: '0 9 * * 1-5', timezone: browserTimeZone(), eventType: '', includeOwnRuns: false };
}

export function triggerFormOf(trigger: TriggerView): TriggerFormValues {
  const empty = emptyTrigger();
  return {
    type: trigger.type,
    cron: trigger.cron ?? empty.cron,
    timezone: trigger.timezone ?? empty.timezone,
    eventType: trigger.eventType ?? '',
    includeOwnRuns: trigger.includeOwnRuns ?? false,
  };
}

/** Whether `zone` is an IANA time zone the browser knows, as the server asks its own runtime. */
export function isTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * A cron expression as the server reads it (croner, 5 fields, minute precision) with its next
 * `count` slots in `timezone`, or why it cannot run.
 */
export function cronSchedule(cron: string, timezone: string, count = 3, after: Date = new Date()): { error: string } | { next: Date[] } {
  const text = cron.trim();
  if (text === '') return { error: 'Required' };
  if (text.split(/\s+/).length !== 5) return { error: 'Must have 5 fields: minute hour day-of-month month day-of-week' };
  try {
    const job = new Cron(text, { timezone: isTimeZone(timezone) ? timezone : undefined, paused: true });
    const next = job.nextRuns(count, after);
    job.stop();
    return next.length === 0 ? { error: 'Never fires' } : { next };
  } catch (error) {
    return { error: `Not a valid cron expression: ${(error as Error).message}` };
  }
}

/** Checks the trigger as the server will (its messages, keyed `trigger.<property>` as the server keys them). */
export function checkTrigger(values: TriggerFormValues, knownTypes: ReadonlySet<string>, now: Date = new Date()): { errors: Record<string, string>; input?: TriggerInput } {
  const errors: Record<string, string> = {};
  if (values.type === 'schedule') {
    if (!isTimeZone(values.timezone)) errors['trigger.timezone'] = `"${values.timezone}" is not an IANA time zone (e.g. Europe/Paris, UTC)`;
    const schedule = cronSchedule(values.cron, values.timezone, 1, now);
    if ('error' in schedule) errors['trigger.cron'] = schedule.error;
    if (Object.keys(errors).length > 0) return { errors };
    return { errors, input: { type: 'schedule', cron: values.cron.trim().replace(/\s+/g, ' '), timezone: values.timezone.trim() } };
  }
  if (values.type === 'event') {
    const eventType = values.eventType.trim();
    if (eventType === '') errors['trigger.eventType'] = 'Choose an event type';
    else if (eventType.startsWith('notification.')) errors['trigger.eventType'] = 'Notifications are personal: no automation is triggered by them';
    else {
      const problem = subscriptionProblem(eventType, knownTypes);
      if (problem) errors['trigger.eventType'] = `"${eventType}" ${problem}`;
    }
    if (Object.keys(errors).length > 0) return { errors };
    return { errors, input: { type: 'event', eventType, includeOwnRuns: values.includeOwnRuns } };
  }
  return { errors, input: { type: 'http' } };
}

/** How a trigger reads in a list. */
export function describeTrigger(trigger: TriggerView): string {
  if (trigger.type === 'http') return `HTTP hook${trigger.secretPrefix ? ` (${trigger.secretPrefix}…)` : ''}`;
  if (trigger.type === 'schedule') return `Schedule ${trigger.cron ?? ''} (${trigger.timezone ?? 'UTC'})`;
  return `On ${trigger.eventType ?? 'an event'}`;
}
