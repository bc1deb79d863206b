import { isUuidString } from '@mrp/platform';
import { SqlFragment } from '../query/sql';

/** The condition of `visibleTo`, over a SQL expression of the caller's role ids (a uuid[]), for the records aliased `alias`. */
export function visibleToRolesIn(roleIdsArray: string, alias = 'r'): string {
  return `(NOT EXISTS (SELECT 1 FROM record_access ra WHERE ra.record_id = ${alias}.id)
    OR EXISTS (SELECT 1 FROM record_access ra WHERE ra.record_id = ${alias}.id AND ra.role_id = ANY(${roleIdsArray})))`;
}

/** The caller's role ids as they may be bound: only well-formed uuids. */
export function boundRoleIds(roleIds: readonly string[]): string[] {
  return roleIds.filter(isUuidString);
}

/**
 * Row-level access as a SQL condition on `records r`: a record without access rows is visible to
 * everyone who may read its model; a restricted one only to holders of a listed role. Kept in SQL
 * so pages, limits and relation checks never see a hidden row; callers report hidden rows as
 * not found, never forbidden.
 */
export function visibleTo(roleIds: readonly string[], alias: 'r' | 'related' = 'r'): SqlFragment {
  return new SqlFragment(visibleToRolesIn('ARRAY[?]::uuid[]', alias), [boundRoleIds(roleIds)]);
}
