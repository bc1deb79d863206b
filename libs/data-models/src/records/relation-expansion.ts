import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, isUuidString, preparedStatement, sqlTextArray, validationFailed } from '@mrp/platform';
import { isLive, type FieldShape } from '../models/model-store';
import { joinSql, sql, trustedSql, type SqlFragment } from '../query/sql';
import { boundRoleIds, visibleTo, visibleToRolesIn } from './record-access';
import type { RecordOutput } from './schemas';

/** A related record as an expanded relation answers it: no title when the caller may not read it. */
export interface ExpandedRelation {
  id: string;
  title?: string;
}

/**
 * The relation fields a read asked to expand, checked against the model's live fields; undefined
 * when it asked for none. A key that is unknown, archived or not a RELATION is refused by name.
 */
export function parseExpansion(text: string | undefined, fields: readonly FieldShape[]): FieldShape[] | undefined {
  if (text === undefined) return undefined;
  const byKey = new Map(fields.filter(isLive).map((field) => [field.key, field]));
  const keys = [...new Set(text.split(',').map((key) => key.trim()))];
  const problems = keys.flatMap((key) => {
    if (key === '') return [{ field: 'expand', code: 'invalid_format', message: 'An empty key: list relation field keys separated by commas' }];
    const field = byKey.get(key);
    if (!field) return [{ field: 'expand', code: 'unknown_field', message: `Unknown field "${key}"` }];
    if (field.type !== 'RELATION') return [{ field: 'expand', code: 'invalid_value', message: `Field "${key}" is not a RELATION field` }];
    return [];
  });
  if (problems.length > 0) throw validationFailed(problems, 'expand names keys that are not relation fields of the model');
  return keys.map((key) => byKey.get(key) as FieldShape);
}

const targetOf = (field: FieldShape) => String(field.config['targetModel'] ?? '');
/**
 * The ids a relation value names as its field's config says it holds them: a list for a field of
 * several, a single id otherwise. A value of the other shape (left by a config change) names none,
 * as in the export's statement (expansionColumns), so a list and an export show the same titles.
 */
const relatedIds = (field: FieldShape, value: unknown): string[] =>
  (field.config['multiple'] === true ? (Array.isArray(value) ? value : []) : typeof value === 'string' ? [value] : []).filter(isUuidString);

// Prepared (planned once per connection; for a page of 100 ids planning cost as much as the
// lookups): the titles of related records that are live, in a live model of the organization with
// one of the given keys, and visible to the caller. The ids drive (a fenced subquery, so the
// primary key finds them whatever the statistics say); row-level access is checked only in models
// that have had a restricted record (decision 157). Parameters: organization, ids, model keys,
// the caller's role ids.
const RELATED_TITLES = preparedStatement(
  `SELECT r.id, r.title, m.key AS model_key
     FROM (SELECT * FROM records WHERE id = ANY($2::uuid[]) OFFSET 0) r
     JOIN data_models m ON m.id = r.model_id AND m.archived_at IS NULL
    WHERE r.organization_id = $1::uuid AND m.organization_id = $1::uuid AND m.key = ANY($3::text[]) AND r.deleted_at IS NULL
      AND (NOT m.has_restricted_records OR ${visibleToRolesIn('$4::uuid[]')})`,
  { purpose: 'related titles of expanded relations', indexes: ['records_pkey', 'data_models_pkey', 'record_access_pkey'] },
);

/**
 * Replaces, in each record's data, the ids of the expanded relation fields with {id, title}: one
 * statement for all records and fields, whatever their number. Only live records of the field's
 * target model that the caller may see get a title; any other id answers exactly like a missing one.
 */
export async function expandRelations(
  em: EntityManager,
  scope: { organizationId: string; roleIds: readonly string[] },
  expanded: readonly FieldShape[],
  records: readonly RecordOutput[],
): Promise<void> {
  const ids = new Set<string>();
  for (const record of records) for (const field of expanded) for (const id of relatedIds(field, record.data[field.key])) ids.add(id);
  const titles = new Map<string, string>();
  if (ids.size > 0) {
    // One array bind value each, however many ids: a page of multiple relations may name thousands.
    const rows = await executePrepared<{ id: string; title: string; model_key: string }>(em, RELATED_TITLES, [
      scope.organizationId,
      sqlTextArray([...ids]),
      sqlTextArray([...new Set(expanded.map(targetOf))]),
      sqlTextArray(boundRoleIds(scope.roleIds)),
    ]);
    for (const row of rows) titles.set(`${row.model_key}:${row.id}`, row.title);
  }
  for (const record of records) {
    for (const field of expanded) {
      const target = targetOf(field);
      const named = new Set(relatedIds(field, record.data[field.key]));
      expandValue(record, field, (id) => (named.has(id) ? titles.get(`${target}:${id}`) : undefined));
    }
  }
}

/**
 * Expands one relation field of `record` with the titles a row of an export carries ({id: title}
 * of the related records the caller may read, found by the statement's own expansion columns).
 */
export function expandWithTitles(record: Pick<RecordOutput, 'data'>, field: FieldShape, titles: Readonly<Record<string, string>>): void {
  expandValue(record, field, (id) => (Object.hasOwn(titles, id) ? titles[id] : undefined));
}

/** Replaces a relation's id, or each of its ids, by {id, title}, or by {id} alone where `titleOf` knows none. */
function expandValue(record: Pick<RecordOutput, 'data'>, field: FieldShape, titleOf: (id: string) => string | undefined): void {
  // Not the data's own key ('constructor' is a valid field key): nothing to expand.
  if (!Object.hasOwn(record.data, field.key)) return;
  const value = record.data[field.key];
  if (value === null || value === undefined) return;
  const expand = (id: unknown): ExpandedRelation => {
    const title = titleOf(String(id));
    return title === undefined ? { id: String(id) } : { id: String(id), title };
  };
  record.data[field.key] = Array.isArray(value) ? value.map(expand) : expand(value);
}

/** Alias, in a list row, of the n-th expanded field's related titles ({id: title}). */
export const expandedTitlesColumn = (index: number) => `expanded_${index}`;

const UUID_TEXT = '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$';

/**
 * The export statement's output columns for `expand`, one per expanded field: the titles of the
 * row's related records that are live, of the field's target model and visible to the caller, as
 * {id: title}, which the database writes into each line. (A list page reads its titles after the
 * page instead, with expandRelations: a subquery per row cost about three times as much as one
 * prepared statement for the page, decision 158.)
 *
 * Row-level access is checked for each related record only where the target model has ever had a
 * restricted record (`has_restricted_records`, set in the transaction that restricts one): in any
 * other model the check cannot hide anything, and it was most of the cost of expanding a page.
 */
export function expansionColumns(expanded: readonly FieldShape[], scope: { organizationId: string; roleIds: readonly string[] }): SqlFragment {
  return joinSql(
    expanded.map((field, index) => {
      const value = sql`r.data->${field.key}`;
      const text = sql`r.data->>${field.key}`;
      const targetModel = (column: string) =>
        sql`(SELECT ${trustedSql(`m.${column}`)} FROM data_models m WHERE m.organization_id = ${scope.organizationId} AND m.key = ${targetOf(field)} AND m.archived_at IS NULL)`;
      // The target model's id and mark are uncorrelated subqueries: PostgreSQL runs them once per statement, not per row.
      const related = (matches: SqlFragment) => sql`FROM records related
          WHERE ${matches} AND related.organization_id = ${scope.organizationId} AND related.deleted_at IS NULL
            AND related.model_id = ${targetModel('id')}
            AND (NOT ${targetModel('has_restricted_records')} OR ${visibleTo(scope.roleIds, 'related')})`;
      // Several ids: each well-formed one, gathered; one id: an equality the primary key answers with at most one row.
      const titles =
        field.config['multiple'] === true
          ? sql`(SELECT jsonb_object_agg(related.id, related.title) ${related(
              sql`related.id = ANY(ARRAY(SELECT given.value::uuid FROM jsonb_array_elements_text(CASE jsonb_typeof(${value}) WHEN 'array' THEN ${value} END) AS given(value) WHERE given.value ~ ${UUID_TEXT}))`,
            )})`
          : sql`(SELECT jsonb_build_object(related.id, related.title) ${related(
              sql`related.id = (CASE WHEN jsonb_typeof(${value}) = 'string' AND ${text} ~ ${UUID_TEXT} THEN (${text})::uuid END)`,
            )})`;
      return sql`, ${titles} AS ${trustedSql(expandedTitlesColumn(index))}`;
    }),
    '',
  );
}

/**
 * What an expanded answer adds to its version's variant: the related titles can change while the
 * record itself does not, so its entity tag must change with them.
 */
export function expansionVariant(expanded: readonly FieldShape[], record: RecordOutput): string {
  const shown = expanded.map((field) => [field.key, record.data[field.key] ?? null]);
  return `.x${createHash('sha256').update(JSON.stringify(shown)).digest('hex').slice(0, 12)}`;
}
