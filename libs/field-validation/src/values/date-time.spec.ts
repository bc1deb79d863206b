import fc from 'fast-check';
import { normaliseDateTime } from './date-time';

const pad = (value: number, width = 2) => String(Math.abs(value)).padStart(width, '0');

/** Renders an instant as local time at `offsetMinutes` east of UTC, e.g. 2024-01-01T10:00:00.000+02:00. */
function withOffset(instant: Date, offsetMinutes: number): string {
  const local = new Date(instant.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? '-' : '+';
  return `${local}${sign}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`;
}

describe('normaliseDateTime', () => {
  it('converts offsets to UTC', () => {
    expect(normaliseDateTime('2024-01-01T10:00:00+02:00')).toEqual({ ok: true, utc: '2024-01-01T08:00:00.000Z' });
    expect(normaliseDateTime('2024-01-01T00:30:00-01:00')).toEqual({ ok: true, utc: '2024-01-01T01:30:00.000Z' });
    expect(normaliseDateTime('2024-03-01T00:00:00+0100')).toEqual({ ok: true, utc: '2024-02-29T23:00:00.000Z' });
  });

  it('accepts Z, optional seconds and truncates sub-millisecond fractions', () => {
    expect(normaliseDateTime('2024-01-01T10:00Z')).toEqual({ ok: true, utc: '2024-01-01T10:00:00.000Z' });
    expect(normaliseDateTime('2024-01-01t10:00:00.123456789z')).toEqual({ ok: true, utc: '2024-01-01T10:00:00.123Z' });
    expect(normaliseDateTime('2024-01-01T10:00:00.5Z')).toEqual({ ok: true, utc: '2024-01-01T10:00:00.500Z' });
  });

  it('rejects date-times without a zone and impossible values', () => {
    for (const text of ['2024-01-01T10:00:00', '2024-01-01', '2024-02-30T10:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T10:60:00Z', '2024-01-01T10:00:60Z', '2024-01-01T10:00:00+24:00', '2024-01-01 10:00:00Z', 'yesterday']) {
      expect(normaliseDateTime(text)).toEqual({ ok: false, reason: 'format' });
    }
  });

  it('rejects instants that leave years 0001-9999 once converted to UTC', () => {
    expect(normaliseDateTime('9999-12-31T23:00:00-02:00')).toEqual({ ok: false, reason: 'range' });
    expect(normaliseDateTime('0001-01-01T00:00:00+01:00')).toEqual({ ok: false, reason: 'range' });
  });

  it('maps any instant written at any offset to the same UTC string Date produces', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0002-01-01T00:00:00Z'), max: new Date('9998-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -23 * 60, max: 23 * 60 }),
        (instant, offset) => {
          const result = normaliseDateTime(withOffset(instant, offset));
          expect(result).toEqual({ ok: true, utc: instant.toISOString() });
          // The normalised form is itself valid and stable.
          expect(normaliseDateTime(instant.toISOString())).toEqual(result);
        },
      ),
    );
  });
});
