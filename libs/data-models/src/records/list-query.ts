import type { FieldDefinition, FilterNode } from '@mrp/field-validation';
import type { CursorPosition } from '../query/cursor';
import { compileFilter } from '../query/filter-compiler';
import { keysetCondition, orderByClause, type SortPlan } from '../query/sort';
import { joinSql, sql, trustedSql, type SqlFragment } from '../query/sql';
import { visibleTo } from './record-access';
import { RECORD_COLUMNS } from './record-rows';

export interface ListQuerySpec {
  organizationId: string;
  modelId: string;
  roleIds: readonly string[];
  fields: ReadonlyMap<string, FieldDefinition>;
  sort: SortPlan;
  filter?: FilterNode;
  after?: CursorPosition;
  /** Rows to fetch: the page size plus one, to learn whether another page follows. */
  limit: number;
}

/** Alias of the n-th sort value in the result, carried into the next cursor. */
export const sortValueColumn = (index: number) => `sort_${index}`;

/**
 * One page of a model's live records. Hot path: the organization/model/deleted_at prefix and the
 * ORDER BY match a partial btree index (or a field's expression index), and the page starts at
 * the keyset condition rather than an OFFSET, so page 5,000 costs what page 1 costs.
 */
export function buildListQuery(spec: ListQuerySpec): SqlFragment {
  const conditions: SqlFragment[] = [
    sql`r.organization_id = ${spec.organizationId}`,
    sql`r.model_id = ${spec.modelId}`,
    trustedSql('r.deleted_at IS NULL'),
    visibleTo(spec.roleIds),
  ];
  if (spec.filter) conditions.push(compileFilter(spec.filter, spec.fields));
  if (spec.after) conditions.push(keysetCondition(spec.sort, spec.after.values, spec.after.id));
  const sortValues = spec.sort.terms.map((term, index) => sql`${term.cursorValue} AS ${trustedSql(sortValueColumn(index))}`);
  return sql`SELECT ${RECORD_COLUMNS}, ${joinSql(sortValues, ', ')}
    FROM records r
    WHERE ${joinSql(conditions, '\n      AND ')}
    ORDER BY ${orderByClause(spec.sort)}
    LIMIT ${spec.limit}`;
}
