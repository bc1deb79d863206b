/**
 * The days a calendar page shows, in the reader's own zone. Days are built from their calendar
 * parts (year, month, day), never by adding 24 hours, so a day that is 23 or 25 hours long (a
 * daylight-saving change) still starts at its own midnight.
 */

export type CalendarView = 'month' | 'week';

/** Weeks start on Monday (ISO 8601). */
const WEEK_STARTS_ON = 1;

export function startOfDay(date: Date): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days, date.getHours(), date.getMinutes(), date.getSeconds(), date.getMilliseconds());
}

export function startOfWeek(date: Date): Date {
  const day = startOfDay(date);
  return addDays(day, -((day.getDay() - WEEK_STARTS_ON + 7) % 7));
}

/** A local day as `YYYY-MM-DD`: the key events are filed under, and a DATE field's value. */
export function dayKey(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Local midnight of a `YYYY-MM-DD` day. */
export function dayFromKey(key: string): Date {
  const [year, month, day] = key.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, day);
}

/** The month's grid: whole weeks from the one holding its first day to the one holding its last. */
export function monthGrid(anchor: Date): Date[][] {
  const first = new Date(anchor.getFullYear(), anchor.getMonth(), 1);
  const last = new Date(anchor.getFullYear(), anchor.getMonth() + 1, 0);
  const weeks: Date[][] = [];
  for (let start = startOfWeek(first); start <= last; start = addDays(start, 7)) {
    weeks.push(Array.from({ length: 7 }, (_, index) => addDays(start, index)));
  }
  return weeks;
}

export function weekDays(anchor: Date): Date[] {
  const start = startOfWeek(anchor);
  return Array.from({ length: 7 }, (_, index) => addDays(start, index));
}

/** The days on screen, first to last. */
export function visibleDays(view: CalendarView, anchor: Date): Date[] {
  return view === 'month' ? monthGrid(anchor).flat() : weekDays(anchor);
}

/**
 * The window `calendars.events` is asked for. DATETIME: from the first day's local midnight to
 * the midnight after the last day (exclusive). DATE: the server compares whole UTC days and
 * includes `to`'s day, so the first and the last day's keys at UTC midnight.
 */
export function eventWindow(view: CalendarView, anchor: Date, fieldType: 'DATE' | 'DATETIME'): { from: string; to: string } {
  const days = visibleDays(view, anchor);
  const first = days[0] as Date;
  const last = days[days.length - 1] as Date;
  if (fieldType === 'DATE') return { from: `${dayKey(first)}T00:00:00.000Z`, to: `${dayKey(last)}T00:00:00.000Z` };
  return { from: first.toISOString(), to: addDays(last, 1).toISOString() };
}

/** Where the previous or next button leads: a month or a week away, or today. */
export function shiftAnchor(view: CalendarView, anchor: Date, step: -1 | 1): Date {
  if (view === 'week') return addDays(startOfDay(anchor), 7 * step);
  return new Date(anchor.getFullYear(), anchor.getMonth() + step, 1);
}

/**
 * The local days an event covers: its start's day to its end's day (the start's only without an
 * end, or when the end is before the start). DATE values are days already.
 */
export function daysOfEvent(start: string, end: string | undefined, fieldType: 'DATE' | 'DATETIME', limit = 62): string[] {
  const toDay = (value: string) => (fieldType === 'DATE' ? dayFromKey(value) : startOfDay(new Date(value)));
  const first = toDay(start);
  if (Number.isNaN(first.getTime())) return [];
  const last = end ? toDay(end) : first;
  const days: string[] = [];
  for (let day = first; day <= last && days.length < limit; day = addDays(day, 1)) days.push(dayKey(day));
  return days.length > 0 ? days : [dayKey(first)];
}
