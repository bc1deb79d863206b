/** Calendar arithmetic on the proleptic Gregorian calendar, years 1 to 9999. */

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const MILLISECONDS_PER_DAY = 86_400_000;

export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

export interface CalendarDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function isValidCalendarDate(year: number, month: number, day: number): boolean {
  return (
    Number.isInteger(year) &&
    year >= MIN_YEAR &&
    year <= MAX_YEAR &&
    Number.isInteger(month) &&
    month >= 1 &&
    month <= 12 &&
    Number.isInteger(day) &&
    day >= 1 &&
    day <= daysInMonth(year, month)
  );
}

/** Parses `YYYY-MM-DD`; returns undefined unless it names a real day. */
export function parseCalendarDate(text: string): CalendarDate | undefined {
  const match = DATE_PATTERN.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return isValidCalendarDate(year, month, day) ? { year, month, day } : undefined;
}

export function isCalendarDateString(text: string): boolean {
  return parseCalendarDate(text) !== undefined;
}

/**
 * Days since 1970-01-01 (Howard Hinnant's days_from_civil). Written out rather than using
 * `Date.UTC`, which silently maps years 0-99 to 1900-1999.
 */
export function daysFromCivil({ year, month, day }: CalendarDate): number {
  const shiftedYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(shiftedYear / 400);
  const yearOfEra = shiftedYear - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Inverse of daysFromCivil; undefined when the day falls outside years 1-9999. */
export function formatEpochDay(epochDay: number): string | undefined {
  if (!Number.isSafeInteger(epochDay)) return undefined;
  const milliseconds = epochDay * MILLISECONDS_PER_DAY;
  const firstDay = daysFromCivil({ year: MIN_YEAR, month: 1, day: 1 });
  const lastDay = daysFromCivil({ year: MAX_YEAR, month: 12, day: 31 });
  if (epochDay < firstDay || epochDay > lastDay) return undefined;
  return new Date(milliseconds).toISOString().slice(0, 10);
}
