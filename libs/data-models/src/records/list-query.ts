import type { FieldDefinition, FilterNode } from '@mrp/field-validation';
import { isCursorReference, sortValueDigestSql, type CursorPosition } from '../query/cursor';
import { compileFilter } from '../query/filter-compiler';
import { isoTimestamp } from '../query/field-expressions';
import { searchCondition } from '../query/search';
import { keysetCondition, orderByClause, type KeysetValue, type SortPlan } from '../query/sort';
import { joinSql, sql, trustedSql, type SqlFragment } from '../query/sql';
import { visibleTo } from './record-access';
import { RECORD_COLUMNS } from './record-rows';
import { expansionColumns } from './relation-expansion';
import type { FieldShape } from '../models/model-store';

export interface ListQuerySpec {
  organizationId: string;
  modelId: string;
  roleIds: readonly string[];
  fields: ReadonlyMap<string, FieldDefinition>;
  sort: SortPlan;
  filter?: FilterNode;
  /** Text to search for (`q`), see searchCondition. */
  search?: string;
  /** List the soft-deleted records (the trash) instead of the live ones. */
  deleted?: boolean;
  after?: CursorPosition;
  /** Rows to fetch: the page size plus one, to learn whether another page follows. */
  limit: number;
  /** Relation fields whose related titles each row carries (expandedTitlesColumn). */
  expanded?: readonly FieldShape[];
  /** More output columns: `, expression AS alias`... */
  columns?: SqlFragment;
}

/** Alias of the n-th sort value in the result, carried into the next cursor. */
export const sortValueColumn = (index: number) => `sort_${index}`;

/** Each sort term's value in a row, as the keyset carries it (sortValueColumn). */
const sortValueColumns = (sort: SortPlan): SqlFragment =>
  joinSql(
    sort.terms.map((term, index) => sql`${term.cursorValue} AS ${trustedSql(sortValueColumn(index))}`),
    ', ',
  );

/**
 * A listed record's id and sort values, read by its id: where a page was read without them (an
 * export's lines), its last row's, in the same snapshot, to start the next page from.
 */
export function keysetRowQuery(sort: SortPlan, id: string): SqlFragment {
  return sql`SELECT r.id, ${sortValueColumns(sort)} FROM records r WHERE r.id = ${id}::uuid`;
}

/** The CTE holding the sort values a cursor refers to instead of carrying them. */
const CURSOR_ROW = 'cursor_row';

/** What a trash listing shows beside the record: when and by whom it was deleted. */
const DELETION_COLUMNS = sql`, ${isoTimestamp('r.deleted_at')} AS deleted_at, r.deleted_by`;

type ListedRecords = Pick<ListQuerySpec, 'organizationId' | 'modelId' | 'roleIds' | 'deleted'>;

/**
 * The records a list shows: the model's live (or, for the trash, soft-deleted) records the caller
 * may see. The one definition of both the page and the cursor row, so a cursor can never read a
 * row the list would not show.
 */
function listedRecordConditions(spec: ListedRecords): SqlFragment[] {
  return [
    sql`r.organization_id = ${spec.organizationId}`,
    sql`r.model_id = ${spec.modelId}`,
    trustedSql(spec.deleted ? 'r.deleted_at IS NOT NULL' : 'r.deleted_at IS NULL'),
    visibleTo(spec.roleIds),
  ];
}

type MatchingRecords = ListedRecords & Pick<ListQuerySpec, 'fields' | 'filter' | 'search'>;

/** The records a list shows that its filter and search match: every page of it, and its count. */
function matchingRecordConditions(spec: MatchingRecords): SqlFragment[] {
  const conditions = listedRecordConditions(spec);
  if (spec.filter) conditions.push(compileFilter(spec.filter, spec.fields));
  if (spec.search !== undefined) conditions.push(searchCondition(spec.search, spec.fields));
  return conditions;
}

/**
 * How many records the list would show for the same model, filter, search and trash, counted
 * only up to `cap` + 1: past the cap a count costs as much as reading those records, and the
 * caller says "more than the cap" instead.
 */
export function buildCountQuery(spec: MatchingRecords, cap: number): SqlFragment {
  return sql`SELECT count(*)::int AS count FROM (
      SELECT 1 FROM records r
      WHERE ${joinSql(matchingRecordConditions(spec), '\n        AND ')}
      LIMIT ${cap + 1}) matching`;
}

/**
 * The cursor row's current sort values for the terms the cursor only refers to: one row while that
 * record is still listed for the caller (live, visible) and each value still has the cursor's
 * digest; none once it was deleted, hidden from the caller or re-sorted. Undefined for a cursor
 * that carries all its values.
 */
export function cursorRowQuery(spec: ListedRecords & Pick<ListQuerySpec, 'sort' | 'after'>): SqlFragment | undefined {
  const after = spec.after;
  if (!after) return undefined;
  const columns: SqlFragment[] = [];
  const checks: SqlFragment[] = [];
  after.values.forEach((value, index) => {
    if (!isCursorReference(value)) return;
    const text = spec.sort.terms[index].cursorValue;
    columns.push(sql`${text} AS ${trustedSql(sortValueColumn(index))}`);
    checks.push(sql`${sortValueDigestSql(text)} = ${value.digest}`);
  });
  if (columns.length === 0) return undefined;
  const conditions = [sql`r.id = ${after.id}::uuid`, ...listedRecordConditions(spec), ...checks];
  return sql`SELECT ${joinSql(columns, ', ')}
      FROM records r
      WHERE ${joinSql(conditions, ' AND ')}`;
}

/**
 * One page of a model's live records (or of its trash). Hot path: the organization/model/deleted_at prefix and the
 * ORDER BY match a partial btree index (or a field's expression index), and the page starts at
 * the keyset condition rather than an OFFSET, so page 5,000 costs what page 1 costs.
 *
 * A cursor that refers to its row's sort values reads them in the same statement (a primary-key
 * lookup in a CTE, evaluated once). Without that row the page is empty, never a wrong page: the
 * caller then tells a refused cursor from the end of the list with cursorRowQuery.
 */
export function buildListQuery(spec: ListQuerySpec): SqlFragment {
  const conditions = matchingRecordConditions(spec);
  const cursorRow = cursorRowQuery(spec);
  if (spec.after) {
    // Not every alternative of an expanded keyset condition involves every value: without this
    // gate, a cursor whose row is gone could still let a wrong page through.
    if (cursorRow) conditions.push(trustedSql(`EXISTS (SELECT 1 FROM ${CURSOR_ROW})`));
    const values: KeysetValue[] = spec.after.values.map((value, index) =>
      isCursorReference(value) ? trustedSql(`(SELECT ${CURSOR_ROW}.${sortValueColumn(index)} FROM ${CURSOR_ROW})`) : value,
    );
    conditions.push(keysetCondition(spec.sort, values, spec.after.id));
  }
  const sortValues = sortValueColumns(spec.sort);
  const withClause = cursorRow ? sql`WITH ${trustedSql(CURSOR_ROW)} AS MATERIALIZED (${cursorRow})\n    ` : trustedSql('');
  const deletion = spec.deleted ? DELETION_COLUMNS : trustedSql('');
  const expansions = spec.expanded?.length ? expansionColumns(spec.expanded, spec) : trustedSql('');
  return sql`${withClause}SELECT ${RECORD_COLUMNS}${deletion}, ${sortValues}${expansions}${spec.columns ?? trustedSql('')}
    FROM records r
    WHERE ${joinSql(conditions, '\n      AND ')}
    ORDER BY ${orderByClause(spec.sort)}
    LIMIT ${spec.limit}`;
}
