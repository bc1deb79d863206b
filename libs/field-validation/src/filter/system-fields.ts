import type { FilterOp } from './filter-ops';
import { ORDERED_OPS, TEXT_OPS } from './filter-ops';

export interface SystemFilterField {
  /** How values are validated: DATETIME and TEXT as the field types of that name, UUID as a record id. */
  readonly type: 'DATETIME' | 'TEXT' | 'UUID';
  readonly ops: readonly FilterOp[];
}

/**
 * Columns every record has, filterable even though they are not model fields. They take
 * precedence over model fields of the same key (only `title` and `id` can collide, and `title` is
 * the same field either way).
 */
export const SYSTEM_FILTER_FIELDS: Readonly<Record<'createdAt' | 'updatedAt' | 'title' | 'id', SystemFilterField>> =
  Object.freeze({
    createdAt: { type: 'DATETIME', ops: ORDERED_OPS },
    updatedAt: { type: 'DATETIME', ops: ORDERED_OPS },
    title: { type: 'TEXT', ops: TEXT_OPS },
    id: { type: 'UUID', ops: ['eq', 'neq', 'in', 'notIn'] },
  });

export type SystemFilterFieldKey = keyof typeof SYSTEM_FILTER_FIELDS;

export function isSystemFilterField(key: string): key is SystemFilterFieldKey {
  return Object.hasOwn(SYSTEM_FILTER_FIELDS, key);
}
