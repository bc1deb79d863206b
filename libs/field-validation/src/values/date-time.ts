import { daysFromCivil, isValidCalendarDate, MAX_YEAR, MIN_YEAR } from './calendar-date';

/**
 * ISO 8601 / RFC 3339 date-time with a mandatory zone designator: `Z` or `±HH:MM` (`±HHMM` accepted).
 * Seconds and fractions are optional; fractions beyond milliseconds are truncated.
 */
const DATE_TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

export type DateTimeParse =
  | { ok: true; utc: string }
  | { ok: false; reason: 'format' | 'range' };

/** Normalises an ISO date-time with offset to UTC, e.g. `2024-01-01T10:00:00+02:00` -> `2024-01-01T08:00:00.000Z`. */
export function normaliseDateTime(text: string): DateTimeParse {
  const match = DATE_TIME_PATTERN.exec(text);
  if (!match) return { ok: false, reason: 'format' };
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((group) => Number(match[group]));
  const second = Number(match[6] ?? '0');
  const millisecond = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetSign = match[9] === '-' ? -1 : 1;
  const offsetHours = Number(match[10] ?? '0');
  const offsetMinutes = Number(match[11] ?? '0');

  if (
    !isValidCalendarDate(year, month, day) ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  ) {
    return { ok: false, reason: 'format' };
  }

  const localMilliseconds =
    daysFromCivil({ year, month, day }) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + millisecond;
  const offsetMilliseconds = offsetSign * (offsetHours * 60 + offsetMinutes) * 60_000;
  const instant = new Date(localMilliseconds - offsetMilliseconds);
  const utcYear = instant.getUTCFullYear();
  // Keep the normalised value inside the four-digit years so it re-validates.
  if (utcYear < MIN_YEAR || utcYear > MAX_YEAR) return { ok: false, reason: 'range' };
  return { ok: true, utc: instant.toISOString() };
}
