import type { DataRecord } from '../data-models/types';
import { daysOfEvent } from './calendar-grid';
import type { CalendarFields } from './reschedule';

/** Events by local day (`YYYY-MM-DD`), an event on every day it spans, each day's in the order given (start order). */
export function eventsByDay(records: readonly DataRecord[], cal: CalendarFields): Map<string, DataRecord[]> {
  const days = new Map<string, DataRecord[]>();
  for (const record of records) {
    const start = record.data[cal.startKey];
    if (typeof start !== 'string') continue;
    const end = cal.endKey ? record.data[cal.endKey] : undefined;
    for (const day of daysOfEvent(start, typeof end === 'string' ? end : undefined, cal.type)) days.set(day, [...(days.get(day) ?? []), record]);
  }
  return days;
}
