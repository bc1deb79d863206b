import type { FieldDefinition } from '../core/field-definition';
import type { FieldType } from '../core/field-types';
import { filterOps, filterOpsOfType } from '../field-types/registry';
import type { FilterOp } from './op-sets';

export { BOOLEAN_OPS, EQUALITY_OPS, FILTER_OPS, isFilterOp, ORDERED_OPS, PRESENCE_OPS, SET_OPS, TEXT_OPS, type FilterOp } from './op-sets';

/**
 * Operators a field type can support under any configuration (its handler's `filterOpsOfAnyConfig`):
 * for RELATION and FORMULA the union; use opsForField for a field.
 */
export function opsForFieldType(type: FieldType): readonly FilterOp[] {
  return filterOpsOfType(type);
}

/**
 * Operators allowed on one field, as its type's handler says for its configuration: single
 * relations compare like SELECT, multiple ones like MULTI_SELECT, formulas like their result type.
 */
export function opsForField(field: FieldDefinition): readonly FilterOp[] {
  return filterOps(field);
}
