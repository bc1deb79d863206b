import type { FieldDefinition } from '../core/field-definition';
import type { FieldType } from '../core/field-types';
import { isFormulaResultType } from '../formula/formula-types';
import type { FormulaResultType } from '../formula/formula-types';

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
/** RELATION fields, single or multiple; see opsForField for the exact set of one field. */
const ANY_RELATION_OPS = ['eq', 'neq', 'contains', 'in', 'notIn', 'isEmpty', 'isNotEmpty'] as const;
/** FORMULA fields of any result type; see opsForField for the exact set of one field. */
const ANY_FORMULA_OPS = FILTER_OPS;

const OPS_BY_FIELD_TYPE: Readonly<Record<FieldType, readonly FilterOp[]>> = {
  TEXT: TEXT_OPS,
  LONG_TEXT: TEXT_OPS,
  RICH_TEXT: TEXT_OPS,
  URL: TEXT_OPS,
  EMAIL: TEXT_OPS,
  NUMBER: ORDERED_OPS,
  DATE: ORDERED_OPS,
  DATETIME: ORDERED_OPS,
  BOOLEAN: BOOLEAN_OPS,
  SELECT: EQUALITY_OPS,
  MULTI_SELECT: SET_OPS,
  RELATION: ANY_RELATION_OPS,
  FORMULA: ANY_FORMULA_OPS,
  FILE: PRESENCE_OPS,
  ATTACHMENTS: PRESENCE_OPS,
};

const OPS_BY_FORMULA_RESULT: Readonly<Record<FormulaResultType, readonly FilterOp[]>> = {
  NUMBER: ORDERED_OPS,
  DATE: ORDERED_OPS,
  TEXT: TEXT_OPS,
  BOOLEAN: BOOLEAN_OPS,
};

/**
 * Operators a field type can support. For RELATION and FORMULA the answer depends on the
 * configuration (`multiple`, `resultType`), so this returns the union; use opsForField for a field.
 */
export function opsForFieldType(type: FieldType): readonly FilterOp[] {
  return Object.hasOwn(OPS_BY_FIELD_TYPE, type) ? OPS_BY_FIELD_TYPE[type] : [];
}

/**
 * Operators allowed on one field. Single relations compare like SELECT (eq, neq, in, notIn);
 * multiple relations behave like MULTI_SELECT (contains, in = contains any). Formulas filter like
 * their result type.
 */
export function opsForField(field: FieldDefinition): readonly FilterOp[] {
  if (field.type === 'RELATION') return field.config['multiple'] === true ? SET_OPS : EQUALITY_OPS;
  if (field.type === 'FORMULA') {
    const resultType = field.config['resultType'];
    return isFormulaResultType(resultType) ? OPS_BY_FORMULA_RESULT[resultType] : PRESENCE_OPS;
  }
  return opsForFieldType(field.type);
}
