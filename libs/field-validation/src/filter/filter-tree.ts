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
 * enclosing and / or / not adds one level. `maxValueLength` bounds the characters of all the
 * conditions' text values together (each text of an `in` list counts): a text match costs
 * PostgreSQL work in proportion to its pattern on every row it looks at, so the nodes alone do
 * not bound what a filter costs (100 ids of 36 characters still fit).
 */
export const FILTER_LIMITS = { maxNodes: 100, maxDepth: 8, maxValueLength: 4_000 } as const;

/** `in` / `notIn` take between 1 and this many values. */
export const FILTER_MAX_LIST_VALUES = 100;
