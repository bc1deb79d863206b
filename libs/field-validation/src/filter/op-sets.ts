/** The filter operators, and the sets of them that field types support (each handler names its own). */
export const FILTER_OPS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'contains',
  'startsWith',
  'in',
  'notIn',
  'isEmpty',
  'isNotEmpty',
] as const;

export type FilterOp = (typeof FILTER_OPS)[number];

export function isFilterOp(value: unknown): value is FilterOp {
  return typeof value === 'string' && (FILTER_OPS as readonly string[]).includes(value);
}

export const TEXT_OPS = ['eq', 'neq', 'contains', 'startsWith', 'in', 'notIn', 'isEmpty', 'isNotEmpty'] as const;
export const ORDERED_OPS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'notIn', 'isEmpty', 'isNotEmpty'] as const;
export const BOOLEAN_OPS = ['eq', 'neq', 'isEmpty', 'isNotEmpty'] as const;
export const EQUALITY_OPS = ['eq', 'neq', 'in', 'notIn', 'isEmpty', 'isNotEmpty'] as const;
/** For multi-valued fields: `contains` one value, `in` = contains any of the values. */
export const SET_OPS = ['contains', 'in', 'isEmpty', 'isNotEmpty'] as const;
export const PRESENCE_OPS = ['isEmpty', 'isNotEmpty'] as const;
