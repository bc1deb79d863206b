import type { FilterNode } from '@mrp/field-validation';
import { describe, expect, it } from 'vitest';
import type { DataField } from '../data-models/types';
import { buildFilterTree, filterTargets } from './filter-builder';
import { draftFromTree } from './filter-draft';

const field = (key: string, type: DataField['type'], config: Record<string, unknown> = {}): DataField => ({
  key,
  name: key,
  type,
  config,
  required: false,
  position: 1,
  indexed: false,
  indexStatus: null,
  indexError: null,
  archivedAt: null,
});

describe('draftFromTree', () => {
  const targets = filterTargets([
    field('title', 'TEXT'),
    field('amount', 'NUMBER'),
    field('status', 'SELECT', { options: [{ value: 'open' }, { value: 'won' }] }),
  ]);

  it('gives back the tree the builder made', () => {
    const trees: FilterNode[] = [
      { field: 'amount', op: 'gt', value: 10 },
      { and: [{ field: 'title', op: 'contains', value: 'acme' }, { or: [{ field: 'status', op: 'in', value: ['open', 'won'] }, { field: 'amount', op: 'isEmpty' }] }] },
      { not: { or: [{ field: 'amount', op: 'in', value: [1, 2.5] }] } },
    ];
    for (const tree of trees) expect(buildFilterTree(draftFromTree(tree, targets), targets)).toEqual(tree);
  });

  it('starts empty without a tree', () => {
    expect(draftFromTree(undefined, targets)).toMatchObject({ mode: 'all', children: [] });
  });
});
