import { describe, expect, it } from 'vitest';
import { foldHeader, mapColumns, remapColumn } from './column-mapping';
import { DEAL_FIELDS } from './import-fixtures';

describe('mapping CSV columns to fields', () => {
  it('matches by key, then by name, then by either folded (case, accents, spaces aside)', () => {
    expect(mapColumns(['amount', 'Title', 'DUE DATE', 'contact-email', 'Notes'], DEAL_FIELDS)).toEqual(['amount', 'title', 'due_date', 'email', null]);
  });

  it('fills a field from one column only: an exact match wins over an earlier folded one', () => {
    expect(mapColumns(['TITLE', 'title'], DEAL_FIELDS)).toEqual([null, 'title']);
    expect(mapColumns(['Stage', 'stage'], DEAL_FIELDS)).toEqual([null, 'stage']);
  });

  it('never maps a formula, which is computed', () => {
    expect(mapColumns(['total', 'Total'], DEAL_FIELDS)).toEqual([null, null]);
  });

  it('moving a field to another column leaves its former column out', () => {
    expect(remapColumn(['title', 'amount', null], 2, 'amount')).toEqual(['title', null, 'amount']);
    expect(remapColumn(['title', 'amount'], 1, null)).toEqual(['title', null]);
  });

  it('folds accents and punctuation', () => {
    expect(foldHeader(' Échéance_date ')).toBe('echeancedate');
  });
});
