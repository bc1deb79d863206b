import { beforeAll, describe, expect, it, vi } from 'vitest';
import { rescheduledValues } from './reschedule';

beforeAll(() => {
  vi.stubEnv('TZ', 'Europe/Paris');
});

const DATETIME = { type: 'DATETIME' as const, startKey: 'starts', endKey: 'ends' };
const DATE = { type: 'DATE' as const, startKey: 'on', endKey: 'until' };

describe('rescheduledValues (in Europe/Paris)', () => {
  it('moves a start to another day at the same local time', () => {
    // 10:30 in Paris in winter, then 10:30 in Paris in summer.
    expect(rescheduledValues({ ...DATETIME, endKey: null }, { starts: '2026-03-20T09:30:00.000Z' }, { day: '2026-04-02' })).toEqual({ starts: '2026-04-02T08:30:00.000Z' });
  });

  it('keeps the duration: the end moves as far as the start', () => {
    const moved = rescheduledValues(DATETIME, { starts: '2026-11-03T09:00:00.000Z', ends: '2026-11-03T10:15:00.000Z' }, { day: '2026-11-05' });
    expect(moved).toEqual({ starts: '2026-11-05T09:00:00.000Z', ends: '2026-11-05T10:15:00.000Z' });
  });

  it('keeps the duration in elapsed time across a daylight-saving change', () => {
    // 23:00 to 04:00 the next morning (5 hours) moved onto the night the clocks go forward.
    const moved = rescheduledValues(DATETIME, { starts: '2026-03-20T22:00:00.000Z', ends: '2026-03-21T03:00:00.000Z' }, { day: '2026-03-28' });
    expect(moved).toEqual({ starts: '2026-03-28T22:00:00.000Z', ends: '2026-03-29T03:00:00.000Z' });
    expect(new Date(moved!.starts!).getHours()).toBe(23);
    expect(new Date(moved!.ends!).getHours()).toBe(5);
  });

  it('takes the hour of a week-view slot, keeping the minutes', () => {
    expect(rescheduledValues({ ...DATETIME, endKey: null }, { starts: '2026-11-03T09:45:00.000Z' }, { day: '2026-11-04', hour: 14 })).toEqual({ starts: '2026-11-04T13:45:00.000Z' });
  });

  it('moves DATE events by whole days, their end too', () => {
    expect(rescheduledValues(DATE, { on: '2026-03-27', until: '2026-03-30' }, { day: '2026-03-28' })).toEqual({ on: '2026-03-28', until: '2026-03-31' });
    expect(rescheduledValues(DATE, { on: '2026-03-27' }, { day: '2026-02-27' })).toEqual({ on: '2026-02-27' });
  });

  it('changes nothing when dropped where it is, or when the event has no start', () => {
    expect(rescheduledValues(DATE, { on: '2026-03-27' }, { day: '2026-03-27' })).toBeNull();
    expect(rescheduledValues(DATETIME, { starts: '2026-11-03T09:00:00.000Z' }, { day: '2026-11-03' })).toBeNull();
    expect(rescheduledValues(DATETIME, {}, { day: '2026-11-03' })).toBeNull();
  });
});
