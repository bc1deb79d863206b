import { describe, expect, it } from 'vitest';
import { cellReader } from './cell-values';
import { DEAL_FIELDS, field } from './import-fixtures';

const reader = (key: string) => cellReader(DEAL_FIELDS.find((candidate) => candidate.key === key)!);

describe('reading CSV cells as field values', () => {
  it('reads numbers as the API writes them or as the locale does, and passes other text on', () => {
    expect(reader('amount')('1200.5')).toBe(1200.5);
    expect(reader('amount')('1,200.50')).toBe(1200.5);
    expect(reader('amount')('lots')).toBe('lots');
    expect(reader('amount')('  ')).toBeUndefined();
  });

  it('reads yes/no words as booleans', () => {
    expect([reader('closed')('Yes'), reader('closed')('0'), reader('closed')('maybe')]).toEqual([true, false, 'maybe']);
  });

  it('reads options by value or label in any case, and lists split on commas or semicolons', () => {
    expect(reader('stage')('closed WON')).toBe('won');
    expect(reader('stage')('lead')).toBe('lead');
    expect(reader('tags')('Alpha; b')).toEqual(['a', 'b']);
  });

  it('keeps free text as written and trims emails', () => {
    expect(reader('title')('  Spaced  ')).toBe('  Spaced  ');
    expect(reader('email')(' a@example.com ')).toBe('a@example.com');
  });

  it('reads a date-time as an instant and a multiple relation as ids', () => {
    expect(cellReader(field('at', 'DATETIME'))('2031-04-01T09:00:00Z')).toBe('2031-04-01T09:00:00.000Z');
    expect(cellReader(field('links', 'RELATION', { config: { targetModel: 'x', multiple: true } }))('a, b')).toEqual(['a', 'b']);
  });
});
