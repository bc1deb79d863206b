import { describe, expect, it } from 'vitest';
import type { DataField } from '../data-models/types';
import { gridLayout, moveColumn, resizeColumn, toggleColumn } from './grid-columns';

const field = (key: string, type: DataField['type'], position: number): DataField => ({
  key,
  name: key.toUpperCase(),
  type,
  config: {},
  required: false,
  position,
  indexed: false,
  indexStatus: null,
  indexError: null,
  archivedAt: null,
});
const fields = [field('title', 'TEXT', 0), field('amount', 'NUMBER', 1), field('status', 'SELECT', 2), field('tags', 'MULTI_SELECT', 3)];

describe('grid columns', () => {
  it('puts the title first, then the fields in model order, then the system columns', () => {
    const layout = gridLayout(fields, { hidden: [], order: [], widths: {} });
    expect(layout.title.key).toBe('title');
    expect(layout.columns.map((column) => column.key)).toEqual(['amount', 'status', 'tags', 'createdAt', 'updatedAt']);
    expect(layout.columns[0]).toMatchObject({ numeric: true, sortable: true, width: 120 });
    expect(layout.columns[2]).toMatchObject({ sortable: false });
  });

  it('follows the view: ordered keys first (unknown ones skipped), hidden ones out, widths applied', () => {
    const layout = gridLayout(fields, { hidden: ['status'], order: ['tags', 'gone', 'createdAt'], widths: { tags: 300, title: 400 } });
    expect(layout.title.width).toBe(400);
    expect(layout.columns.map((column) => [column.key, column.width])).toEqual([
      ['tags', 300],
      ['createdAt', 170],
      ['amount', 120],
      ['updatedAt', 170],
    ]);
    expect(layout.all.find((column) => column.key === 'status')?.hidden).toBe(true);
  });

  it('moves, hides and sizes columns', () => {
    expect(moveColumn(['a', 'b', 'c'], 'c', -1)).toEqual(['a', 'c', 'b']);
    expect(moveColumn(['a', 'b', 'c'], 'a', -1)).toEqual(['a', 'b', 'c']);
    expect(moveColumn(['a', 'b', 'c'], 'a', 5)).toEqual(['b', 'c', 'a']);
    expect(toggleColumn({ hidden: ['a'] }, 'a', true)).toEqual([]);
    expect(toggleColumn({ hidden: [] }, 'b', false)).toEqual(['b']);
    expect(resizeColumn({}, 'a', 10)).toEqual({ a: 48 });
  });
});
