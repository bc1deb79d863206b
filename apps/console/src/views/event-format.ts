import type { DataRecord } from '../data-models/types';
import { dayFromKey } from './calendar-grid';
import type { CalendarFields } from './reschedule';

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
export const longDay = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });

/** An event's start time in the reader's zone; none for DATE events. */
export function startTime(record: DataRecord, fields: CalendarFields): string {
  const start = record.data[fields.startKey];
  return fields.type === 'DATETIME' && typeof start === 'string' ? time.format(new Date(start)) : '';
}

/** When an event is, from start to end, in plain words. */
export function formatWhen(record: DataRecord, fields: CalendarFields): string {
  const show = (value: unknown) =>
    typeof value !== 'string' ? '' : fields.type === 'DATE' ? date.format(dayFromKey(value)) : dateTime.format(new Date(value));
  const start = show(record.data[fields.startKey]);
  const end = fields.endKey ? show(record.data[fields.endKey]) : '';
  return end ? `${start} – ${end}` : start;
}
