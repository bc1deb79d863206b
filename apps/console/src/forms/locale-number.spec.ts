import { describe, expect, it } from 'vitest';
import { parseLocaleNumber } from './locale-number';

describe('parseLocaleNumber', () => {
  it('reads the way the API writes numbers, in any locale', () => {
    expect(parseLocaleNumber('1200.50', 'en-US')).toBe(1200.5);
    expect(parseLocaleNumber(' -3 ', 'de-DE')).toBe(-3);
    expect(parseLocaleNumber('1.5', 'de-DE')).toBe(1.5);
    expect(parseLocaleNumber('2e3', 'en-US')).toBe(2000);
  });

  it("reads the locale's group and decimal separators", () => {
    expect(parseLocaleNumber('1,200.50', 'en-US')).toBe(1200.5);
    expect(parseLocaleNumber('1,234,567', 'en-US')).toBe(1234567);
    expect(parseLocaleNumber('1.200,50', 'de-DE')).toBe(1200.5);
    expect(parseLocaleNumber('1200,5', 'de-DE')).toBe(1200.5);
    expect(parseLocaleNumber('1 200,50', 'fr-FR')).toBe(1200.5);
    expect(parseLocaleNumber('1\u202f200,50', 'fr-FR')).toBe(1200.5);
  });

  it('guesses nothing when the two readings disagree or neither fits', () => {
    expect(parseLocaleNumber('1.200', 'de-DE')).toBeUndefined();
    expect(parseLocaleNumber('1,20', 'en-US')).toBeUndefined();
    expect(parseLocaleNumber('1,200.50', 'de-DE')).toBeUndefined();
    expect(parseLocaleNumber('twelve', 'en-US')).toBeUndefined();
    expect(parseLocaleNumber('', 'en-US')).toBeUndefined();
  });
});
