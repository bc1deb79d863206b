import { beforeAll, describe, expect, it, vi } from 'vitest';
import { daysOfEvent, dayKey, eventWindow, monthGrid, shiftAnchor, visibleDays, weekDays } from './calendar-grid';

// A zone with daylight saving: 29 March 2026 has 23 hours there, 25 October 2026 has 25.
beforeAll(() => {
  vi.stubEnv('TZ', 'Europe/Paris');
});

describe('the calendar grid (in Europe/Paris)', () => {
  it('runs in a zone with daylight saving, so the checks below mean something', () => {
    expect(new Date(2026, 0, 15).getTimezoneOffset()).toBe(-60);
    expect(new Date(2026, 6, 15).getTimezoneOffset()).toBe(-120);
  });

  it('lays a month out in whole weeks starting on Monday', () => {
    const weeks = monthGrid(new Date(2026, 10, 17));
    expect(weeks).toHaveLength(6);
    expect(weeks.map((week) => dayKey(week[0]!))).toEqual(['2026-10-26', '2026-11-02', '2026-11-09', '2026-11-16', '2026-11-23', '2026-11-30']);
    expect(dayKey(weeks[5]![6]!)).toBe('2026-12-06');
    expect(monthGrid(new Date(2021, 1, 1))).toHaveLength(4);
  });

  it('gives every day of a month with a daylight-saving change its own midnight, none skipped or repeated', () => {
    const days = monthGrid(new Date(2026, 2, 10)).flat();
    const keys = days.map(dayKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.slice(keys.indexOf('2026-03-28'), keys.indexOf('2026-03-28') + 3)).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
    expect(days.every((day) => day.getHours() === 0 && day.getMinutes() === 0)).toBe(true);
  });

  it('shows the week (Monday to Sunday) holding the anchor', () => {
    expect(weekDays(new Date(2026, 9, 25, 18)).map(dayKey)).toEqual(['2026-10-19', '2026-10-20', '2026-10-21', '2026-10-22', '2026-10-23', '2026-10-24', '2026-10-25']);
    expect(visibleDays('week', new Date(2026, 9, 26)).map(dayKey)[0]).toBe('2026-10-26');
  });

  it('asks for a DATETIME window from the first local midnight to the midnight after the last day', () => {
    // 23 Feb is in winter time (+01:00), 6 April in summer time (+02:00).
    expect(eventWindow('month', new Date(2026, 2, 1), 'DATETIME')).toEqual({ from: '2026-02-22T23:00:00.000Z', to: '2026-04-05T22:00:00.000Z' });
    // The week of the change back: 25 October has 25 hours.
    expect(eventWindow('week', new Date(2026, 9, 21), 'DATETIME')).toEqual({ from: '2026-10-18T22:00:00.000Z', to: '2026-10-25T23:00:00.000Z' });
  });

  it('asks for a DATE window by day keys, the last day included', () => {
    expect(eventWindow('week', new Date(2026, 9, 21), 'DATE')).toEqual({ from: '2026-10-19T00:00:00.000Z', to: '2026-10-25T00:00:00.000Z' });
  });

  it('moves a month or a week at a time', () => {
    expect(dayKey(shiftAnchor('month', new Date(2026, 0, 31), 1))).toBe('2026-02-01');
    expect(dayKey(shiftAnchor('month', new Date(2026, 0, 31), -1))).toBe('2025-12-01');
    expect(dayKey(shiftAnchor('week', new Date(2026, 9, 22, 12), 1))).toBe('2026-10-29');
  });

  it('files an event under each local day it covers', () => {
    expect(daysOfEvent('2026-10-24T21:30:00.000Z', '2026-10-26T08:00:00.000Z', 'DATETIME')).toEqual(['2026-10-24', '2026-10-25', '2026-10-26']);
    expect(daysOfEvent('2026-10-24T21:30:00.000Z', undefined, 'DATETIME')).toEqual(['2026-10-24']);
    expect(daysOfEvent('2026-03-28', '2026-03-30', 'DATE')).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
    expect(daysOfEvent('2026-03-28', '2026-03-01', 'DATE')).toEqual(['2026-03-28']);
  });
});
