import type { FilterOp } from './filter-ops';

/** A boolean filter over a model's records, as accepted by the records API. */
export type FilterNode =
  | { and: FilterNode[] }
  | { or: FilterNode[] }
  | { not: FilterNode }
  | { field: string; op: FilterOp; value?: unknown };

export type FilterCondition = Extract<FilterNode, { field: string }>;

/**
 * Size limits. Every object in the tree counts as one node; a lone condition has depth 1 and each
 * enclosing and / or / not adds one level.
 */
export const FILTER_LIMITS = { maxNodes: 100, maxDepth: 8 } as const;

/** `in` / `notIn` take between 1 and this many values. */
export const FILTER_MAX_LIST_VALUES = 100;
