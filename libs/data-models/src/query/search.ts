import type { FieldDefinition } from '@mrp/field-validation';
import { likePattern } from './filter-compiler';
import { rawText } from './field-expressions';
import { joinSql, sql, type SqlFragment } from './sql';

/** Field types whose values a search looks into, beside the title. */
const SEARCHED_TYPES: ReadonlySet<string> = new Set(['TEXT', 'EMAIL', 'URL']);

/**
 * The condition of a search (`q`) on `records r`: the text, taken literally, occurs in the title
 * or in a value of one of the given fields of a searched type, in any case. Pass the model's live
 * fields only (definitionMap): an archived field's values are not searched. The records list and
 * the export both filter with this one condition.
 *
 * The title is tested on `r.title` itself, ILIKE, so the trigram index `records_live_title_trigrams`
 * (gin_trgm_ops, partial on live records) can answer it: a model whose only searched field is its
 * title is searched through the index, whichever order the page is sorted in. A field value has no
 * such index; with searched fields, the planner walks the list's order index instead and stops at
 * the end of the page, which costs little while matches are frequent.
 */
export function searchCondition(text: string, fields: ReadonlyMap<string, FieldDefinition>): SqlFragment {
  const pattern = likePattern(text, 'contains');
  const tests = [sql`r.title ILIKE ${pattern}`];
  for (const field of fields.values()) {
    if (field.key !== 'title' && SEARCHED_TYPES.has(field.type)) tests.push(sql`${rawText(field.key)} ILIKE ${pattern}`);
  }
  return tests.length === 1 ? tests[0] : sql`(${joinSql(tests, ' OR ')})`;
}

