import { FIELD_KEY_PATTERN, type ValueKind } from '@mrp/field-validation';
import { sql, trustedSql, type SqlFragment } from './sql';

/**
 * How a field's JSON value is compared in SQL, by its kind (field-validation's `valueKind`: each
 * field type's handler declares it). Filters, sorts and expression indexes all use the
 * expressions below, so the planner can match a query to a field's index.
 */

/** Text values are compared in full but indexed and sorted by this prefix first: btree entries are limited to ~2.7 kB. */
export const TEXT_INDEX_PREFIX = 200;

/** Kinds with a total order, usable in `sort` and in btree indexes. */
export function isOrderedKind(kind: ValueKind): boolean {
  return kind !== 'list' && kind !== 'object';
}

function assertFieldKey(key: string): void {
  // Keys are spliced into SQL as literals; only validated keys may get here.
  if (!FIELD_KEY_PATTERN.test(key)) throw new Error(`Refusing to build SQL for field key "${key}"`);
}

/** `data->'key'`: the raw JSON value (NULL when absent). `column` is `r.data` in queries, `data` in index DDL. */
export function jsonValue(key: string, column = 'r.data'): SqlFragment {
  assertFieldKey(key);
  return trustedSql(`(${column}->'${key}')`);
}

/** The typed SQL expression of a field value. Must stay identical to the index expressions. */
export function typedValue(key: string, kind: ValueKind, column = 'r.data'): SqlFragment {
  assertFieldKey(key);
  const text = `${column}->>'${key}'`;
  switch (kind) {
    case 'text':
      return trustedSql(`(${text})`);
    case 'number':
      return trustedSql(`((${text})::numeric)`);
    case 'boolean':
      return trustedSql(`((${text})::boolean)`);
    case 'date':
      return trustedSql(`data_models_date(${text})`);
    case 'datetime':
      return trustedSql(`data_models_timestamptz(${text})`);
    case 'list':
    case 'object':
      return jsonValue(key, column);
  }
}

/** The raw text of a field value, as carried in cursors. */
export function rawText(key: string, column = 'r.data'): SqlFragment {
  assertFieldKey(key);
  return trustedSql(`(${column}->>'${key}')`);
}

export function textPrefix(expression: SqlFragment): SqlFragment {
  return sql`left(${expression}, ${trustedSql(String(TEXT_INDEX_PREFIX))})`;
}

/** A bind value cast to the SQL type of a kind. */
export function typedParam(kind: ValueKind | 'uuid' | 'timestamptz', value: unknown): SqlFragment {
  switch (kind) {
    case 'text':
      return sql`${value}::text`;
    case 'number':
      return sql`${value}::numeric`;
    case 'boolean':
      return sql`${value}::boolean`;
    case 'date':
      return sql`${value}::date`;
    case 'datetime':
    case 'timestamptz':
      return sql`${value}::timestamptz`;
    case 'uuid':
      return sql`${value}::uuid`;
    case 'list':
    case 'object':
      return sql`${JSON.stringify(value)}::jsonb`;
  }
}

/** The SQL array type of a kind, for `= ANY(ARRAY[...]::type[])`. */
export function arrayType(kind: ValueKind | 'uuid' | 'timestamptz'): string {
  switch (kind) {
    case 'text':
      return 'text[]';
    case 'number':
      return 'numeric[]';
    case 'boolean':
      return 'boolean[]';
    case 'date':
      return 'date[]';
    case 'datetime':
    case 'timestamptz':
      return 'timestamptz[]';
    case 'uuid':
      return 'uuid[]';
    case 'list':
    case 'object':
      return 'jsonb[]';
  }
}

/** True when the field has no value: absent, null, "" or [] (the same notion as the `required` rule). */
export function isEmptyJson(key: string, column = 'r.data'): SqlFragment {
  return sql`COALESCE(${jsonValue(key, column)} IN ('null'::jsonb, '""'::jsonb, '[]'::jsonb), true)`;
}

/** ISO 8601 UTC with milliseconds and `Z`, the API's timestamp format, computed without session settings. */
export function isoTimestamp(column: string): SqlFragment {
  return trustedSql(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
}

/** Like isoTimestamp with microseconds: cursors must carry the exact stored value. */
export function exactTimestamp(column: string): SqlFragment {
  return trustedSql(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);
}
