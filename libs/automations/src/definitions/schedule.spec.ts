import { nextSlot, scheduleProblem } from './schedule';

describe('schedules', () => {
  it('accepts 5-field expressions in IANA zones', () => {
    expect(scheduleProblem('*/15 9-17 * * 1-5', 'Europe/Paris')).toBeNull();
    expect(scheduleProblem('0 0 1 1 *', 'UTC')).toBeNull();
  });

  it('refuses seconds, garbage and unknown zones with the field at fault', () => {
    expect(scheduleProblem('0 */5 * * * *', 'UTC')).toEqual({ field: 'cron', message: 'must have 5 fields: minute hour day-of-month month day-of-week' });
    expect(scheduleProblem('61 * * * *', 'UTC')?.field).toBe('cron');
    expect(scheduleProblem('every day', 'UTC')?.field).toBe('cron');
    expect(scheduleProblem('0 9 * * *', 'Mars/Olympus')).toEqual({ field: 'timezone', message: '"Mars/Olympus" is not an IANA time zone (e.g. Europe/Paris, UTC)' });
  });

  it('finds the next slot in the schedule time zone', () => {
    // 09:00 in Paris is 08:00 UTC in winter.
    expect(nextSlot('0 9 * * *', 'Europe/Paris', new Date('2026-11-23T08:30:00Z'))?.toISOString()).toBe('2026-11-24T08:00:00.000Z');
    expect(nextSlot('*/5 * * * *', 'UTC', new Date('2026-11-23T08:30:00Z'))?.toISOString()).toBe('2026-11-23T08:35:00.000Z');
  });
});
