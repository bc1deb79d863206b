import { describe, expect, it } from 'vitest';
import type { DataField } from '../data-models/types';
import { defaultViewState } from '../records/view-state';
import { exportFileName, exportPath, visibleFieldKeys } from './export-request';

const field = (key: string, position: number, archivedAt: string | null = null): DataField => ({
  key,
  name: key,
  type: 'TEXT',
  config: {},
  required: false,
  position,
  indexed: false,
  indexStatus: null,
  indexError: null,
  archivedAt,
});
const FIELDS = [field('title', 0), field('amount', 1), field('stage', 2), field('notes', 3), field('old', 4, '2026-01-01T00:00:00Z')];

describe('the export of the grid’s view', () => {
  it('names the visible fields in the grid’s order, the title first, without hidden or unknown ones', () => {
    expect(visibleFieldKeys(FIELDS, { hidden: [], order: [] })).toEqual(['title', 'amount', 'stage', 'notes']);
    expect(visibleFieldKeys(FIELDS, { hidden: ['stage', 'title'], order: ['notes', 'gone', 'title'] })).toEqual(['title', 'notes', 'amount']);
  });

  it('asks the export route for the view’s search, filter and sort', () => {
    const state = { ...defaultViewState(), q: 'big deal', filter: { field: 'stage', op: 'eq', value: 'won' } as never, sort: '-amount', hidden: ['notes'] };
    const url = new URL(exportPath('deals', state, FIELDS, 'csv'), 'http://console.test');
    expect(url.pathname).toBe('/api/v1/models/deals/records/export');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      format: 'csv',
      q: 'big deal',
      filter: '{"field":"stage","op":"eq","value":"won"}',
      sort: '-amount',
      fields: 'title,amount,stage',
    });
  });

  it('names the file after the model and the day', () => {
    expect(exportFileName('deals', 'ndjson', new Date('2026-11-27T10:00:00Z'))).toBe('deals-2026-11-27.ndjson');
  });
});
