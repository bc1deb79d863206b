import fc from 'fast-check';
import { daysFromCivil, formatEpochDay, isCalendarDateString, parseCalendarDate } from './calendar-date';

/** Independent oracle: JavaScript's own calendar (setUTCFullYear avoids the 0-99 => 19xx quirk). */
function utcMidnight(year: number, month: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

describe('calendar dates', () => {
  it('accepts real dates including leap days', () => {
    expect(parseCalendarDate('2024-02-29')).toEqual({ year: 2024, month: 2, day: 29 });
    expect(isCalendarDateString('2000-02-29')).toBe(true);
    expect(isCalendarDateString('0001-01-01')).toBe(true);
    expect(isCalendarDateString('9999-12-31')).toBe(true);
  });

  it('rejects impossible or malformed dates', () => {
    for (const text of ['2023-02-29', '2023-02-30', '1900-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '0000-01-01', '2024-1-01', '2024-01-01T00:00:00Z', ' 2024-01-01']) {
      expect(isCalendarDateString(text)).toBe(false);
    }
  });

  it('agrees with the JavaScript calendar on validity for every year/month/day combination', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (year, month, day) => {
        const oracle = utcMidnight(year, month, day);
        const isReal = oracle.getUTCMonth() === month - 1 && oracle.getUTCDate() === day;
        expect(isCalendarDateString(`${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`)).toBe(isReal);
      }),
    );
  });

  it('counts days from the epoch exactly like Date and formats them back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), (year, month, day) => {
        const epochDay = daysFromCivil({ year, month, day });
        expect(epochDay * 86_400_000).toBe(utcMidnight(year, month, day).getTime());
        expect(formatEpochDay(epochDay)).toBe(`${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);
      }),
    );
  });

  it('refuses to format days outside years 1-9999', () => {
    expect(formatEpochDay(daysFromCivil({ year: 9999, month: 12, day: 31 }) + 1)).toBeUndefined();
    expect(formatEpochDay(daysFromCivil({ year: 1, month: 1, day: 1 }) - 1)).toBeUndefined();
    expect(formatEpochDay(0.5)).toBeUndefined();
  });
});
