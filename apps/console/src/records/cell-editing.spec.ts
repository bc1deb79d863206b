import { describe, expect, it } from 'vitest';
import type { DataField, DataRecord } from '../data-models/types';
import { cellValueOf, checkCell, draftOf, isInlineEditable, mergeSaved, sameValue, storedValue } from './cell-editing';

const field = (key: string, type: DataField['type'], config: Record<string, unknown> = {}, required = false): DataField => ({
  key,
  name: key,
  type,
  config,
  required,
  position: 1,
  indexed: false,
  indexStatus: null,
  indexError: null,
  archivedAt: null,
});
const title = field('title', 'TEXT', { maxLength: 1000 }, true);
const amount = field('amount', 'NUMBER', { precision: 2, min: 0 });
const company = field('company', 'RELATION', { targetModel: 'companies', multiple: false });
const fields = [title, amount, company];

describe('cell editing', () => {
  it('reads locale numbers and checks them with the server rules and words', () => {
    expect(cellValueOf(amount, '1,200.50')).toBe(1200.5);
    expect(checkCell(fields, amount, cellValueOf(amount, '1,200.50'))).toBeUndefined();
    expect(checkCell(fields, amount, cellValueOf(amount, '1.234'))).toBe('Must have at most 2 decimal places.');
    expect(checkCell(fields, amount, cellValueOf(amount, '-1'))).toBe('Must be at least 0.');
    expect(checkCell(fields, amount, cellValueOf(amount, 'lots'))).toMatch(/^Must be a number, not text/);
    expect(checkCell(fields, title, cellValueOf(title, ''))).toBeDefined();
  });

  it('edits relations by id, whatever the grid shows', () => {
    expect(storedValue(company, { id: 'c1', title: 'Initech' })).toBe('c1');
    expect(draftOf(company, { id: 'c1', title: 'Initech' })).toBe('c1');
    expect(sameValue(company, { id: 'c1', title: 'Initech' }, 'c1')).toBe(true);
    expect(sameValue(amount, undefined, null)).toBe(true);
    expect(sameValue(amount, 1, 2)).toBe(false);
  });

  it('keeps relations expanded in the row after a save', () => {
    const row: DataRecord = { id: 'r', model: 'm', title: 'A', data: { title: 'A', company: { id: 'c1', title: 'Initech' } }, createdAt: '', updatedAt: '1', createdBy: '', updatedBy: '' };
    const saved = { ...row, updatedAt: '2', data: { title: 'A', amount: 5, company: 'c1' } };
    expect(mergeSaved(row, saved, fields, amount, 5).data).toEqual({ title: 'A', amount: 5, company: { id: 'c1', title: 'Initech' } });
    expect(mergeSaved(row, { ...saved, data: { title: 'A' } }, fields, company, null).data).toEqual({ title: 'A' });
  });

  it('leaves files and formulas to the form', () => {
    expect(isInlineEditable(field('f', 'FILE'))).toBe(false);
    expect(isInlineEditable(field('f', 'FORMULA'))).toBe(false);
    expect(isInlineEditable(amount)).toBe(true);
  });
});
