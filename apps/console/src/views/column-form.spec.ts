import { describe, expect, it } from 'vitest';
import { checkColumn, columnIdFromLabel } from './column-form';

const OPTIONS = [
  { value: 'todo', label: 'To do' },
  { value: 'done', label: 'Done' },
];

describe('checkColumn (field-validation’s SELECT rules on the options after the change)', () => {
  it('passes a new column with a fresh id and a label', () => {
    expect(checkColumn({ options: OPTIONS }, [...OPTIONS, { value: 'review', label: 'Review' }], 2)).toEqual({});
  });

  it('refuses an id another column has, on the id', () => {
    expect(checkColumn({ options: OPTIONS }, [...OPTIONS, { value: 'todo', label: 'Again' }], 2)).toEqual({ id: 'Option values must be unique.' });
  });

  it('refuses a blank label and a label with a line break', () => {
    expect(checkColumn({ options: OPTIONS }, [...OPTIONS, { value: 'x', label: ' ' }], 2).label).toBe('Required');
    expect(checkColumn({ options: OPTIONS }, [{ value: 'todo', label: 'Two\nlines' }, OPTIONS[1]!], 0).label).toMatch(/single line/);
  });

  it('suggests an id from the label', () => {
    expect(columnIdFromLabel('In review')).toBe('in_review');
  });
});
