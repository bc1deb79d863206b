import { addDays, dayFromKey, dayKey } from './calendar-grid';

export interface RescheduleTarget {
  /** The day dropped on, `YYYY-MM-DD` (local). */
  day: string;
  /** The hour dropped on (the week view's slots); the event keeps its own time without. */
  hour?: number;
}

export interface CalendarFields {
  type: 'DATE' | 'DATETIME';
  startKey: string;
  endKey: string | null;
}

/**
 * The values an event gets when moved to another day (and hour): its start on that day, keeping
 * its time of day unless an hour is given, and its end as far after the new start as it was
 * after the old one, so its duration stays. A DATETIME's duration is kept to the millisecond (an
 * hour-long meeting stays an hour across a daylight-saving change); a DATE's in days. Null when
 * nothing changes or the event has no start.
 */
export function rescheduledValues(fields: CalendarFields, data: Record<string, unknown>, target: RescheduleTarget): Record<string, string> | null {
  const start = data[fields.startKey];
  if (typeof start !== 'string') return null;
  const end = fields.endKey ? data[fields.endKey] : undefined;
  const values: Record<string, string> = {};
  if (fields.type === 'DATE') {
    if (start === target.day) return null;
    values[fields.startKey] = target.day;
    if (fields.endKey && typeof end === 'string') {
      const shift = Math.round((dayFromKey(target.day).getTime() - dayFromKey(start).getTime()) / 86_400_000);
      values[fields.endKey] = dayKey(addDays(dayFromKey(end), shift));
    }
    return values;
  }
  const from = new Date(start);
  if (Number.isNaN(from.getTime())) return null;
  const day = dayFromKey(target.day);
  const moved = new Date(day.getFullYear(), day.getMonth(), day.getDate(), target.hour ?? from.getHours(), from.getMinutes(), from.getSeconds(), from.getMilliseconds());
  if (moved.getTime() === from.getTime()) return null;
  values[fields.startKey] = moved.toISOString();
  if (fields.endKey && typeof end === 'string' && !Number.isNaN(new Date(end).getTime())) {
    values[fields.endKey] = new Date(moved.getTime() + (new Date(end).getTime() - from.getTime())).toISOString();
  }
  return values;
}
