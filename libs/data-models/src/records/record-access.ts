import { isUuidString } from '@mrp/platform';
import { sql, type SqlFragment } from '../query/sql';

/**
 * Row-level access as a SQL condition on `records r`: a record without access rows is visible to
 * everyone who may read its model; a restricted one only to holders of a listed role. Kept in SQL
 * so pages, limits and relation checks never see a hidden row; callers report hidden rows as
 * not found, never forbidden.
 */
export function visibleTo(roleIds: readonly string[]): SqlFragment {
  const roles = roleIds.filter(isUuidString);
  return sql`(NOT EXISTS (SELECT 1 FROM record_access ra WHERE ra.record_id = r.id)
    OR EXISTS (SELECT 1 FROM record_access ra WHERE ra.record_id = r.id AND ra.role_id = ANY(ARRAY[${roles}]::uuid[])))`;
}
