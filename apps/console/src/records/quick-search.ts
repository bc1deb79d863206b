import { TITLE_FIELD_KEY, validateFilterTree, type FilterNode } from '@mrp/field-validation';
import { liveFields } from '../data-models/field-types';
import type { DataField } from '../data-models/types';

/** The field types the server's `q` looks into, beside the title (data-models' searchCondition). */
const SEARCHED_TYPES: ReadonlySet<string> = new Set(['TEXT', 'EMAIL', 'URL']);
/** `in` takes at most 100 values; a model's options may be up to 500. */
const MAX_IN_VALUES = 100;

interface Option {
  value: string;
  label?: string;
}

const optionsOf = (field: DataField): Option[] => (Array.isArray(field.config['options']) ? (field.config['options'] as Option[]) : []);

/**
 * How the grid asks for its quick search. The server's `q` reads the title and text, email and URL
 * fields only, while the grid shows a SELECT's option by its label: "Won" would miss every record
 * showing Won. So when the text occurs (any case) in the label of some options of SELECT or
 * MULTI_SELECT fields, the search is sent as one `or` filter instead, the conditions `q` applies
 * plus "has one of those options", and-ed with the view's own filter. Without such options, or if
 * the tree would pass the filter's limits, it stays the plain `q`.
 */
export function searchListInput(q: string | undefined, filter: FilterNode | undefined, fields: readonly DataField[]): { q?: string; filter?: FilterNode } {
  const plain = { ...(q ? { q } : {}), ...(filter ? { filter } : {}) };
  if (!q) return plain;
  const live = liveFields(fields);
  const needle = q.toLowerCase();
  const optionConditions: FilterNode[] = [];
  for (const field of live) {
    if (field.type !== 'SELECT' && field.type !== 'MULTI_SELECT') continue;
    const values = optionsOf(field)
      .filter((option) => (option.label || option.value).toLowerCase().includes(needle))
      .map((option) => option.value);
    for (let start = 0; start < values.length; start += MAX_IN_VALUES) {
      optionConditions.push({ field: field.key, op: 'in', value: values.slice(start, start + MAX_IN_VALUES) });
    }
  }
  if (optionConditions.length === 0) return plain;
  const textConditions: FilterNode[] = [
    { field: TITLE_FIELD_KEY, op: 'contains', value: q },
    ...live.filter((field) => field.key !== TITLE_FIELD_KEY && SEARCHED_TYPES.has(field.type)).map((field): FilterNode => ({ field: field.key, op: 'contains', value: q })),
  ];
  const search: FilterNode = { or: [...textConditions, ...optionConditions] };
  const tree = filter ? { and: [filter, search] } : search;
  return validateFilterTree(tree, [...live]).ok ? { filter: tree } : plain;
}
