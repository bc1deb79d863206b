import { validateFilterTree, type FilterOp } from '@mrp/field-validation';
import type { DataField } from '../data-models/types';
import { parseLocaleNumber } from '../forms/locale-number';
import { filterTargets, takesList, takesNoValue, type FilterTarget } from '../records/filter-builder';
import { holdsTemplate } from './action-values';

/**
 * How an update-record action finds its one record by a field's value: one condition, whose value
 * may be a template (`{{input.ref}}`). Anything richer stays a filter tree in JSON.
 */
export interface RecordMatch {
  field: string;
  op: FilterOp;
  /** As typed, or a template. */
  value: string;
}

export const EMPTY_MATCH: RecordMatch = { field: '', op: 'eq', value: '' };

/** The fields and columns a match can test, with the operators that take one value or none. */
export function matchTargets(fields: readonly DataField[]): FilterTarget[] {
  return filterTargets(fields)
    .map((target) => ({ ...target, ops: target.ops.filter((op) => !takesList(op)) }))
    .filter((target) => target.ops.length > 0);
}

function operand(target: FilterTarget | undefined, text: string): unknown {
  if (holdsTemplate(text)) return text;
  switch (target?.operand) {
    case 'number':
      return parseLocaleNumber(text) ?? text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'id':
      return text.trim();
    default:
      return text;
  }
}

/** The filter tree of a match. */
export function filterOfMatch(match: RecordMatch, fields: readonly DataField[]): Record<string, unknown> {
  if (takesNoValue(match.op)) return { field: match.field, op: match.op };
  const target = matchTargets(fields).find((candidate) => candidate.key === match.field);
  return { field: match.field, op: match.op, value: operand(target, match.value) };
}

/** A stored filter as a match, when it is one condition of one scalar value (else it stays JSON). */
export function matchOfFilter(filter: Record<string, unknown>): RecordMatch | undefined {
  const keys = Object.keys(filter).sort().join(',');
  if (keys !== 'field,op' && keys !== 'field,op,value') return undefined;
  const { field, op, value } = filter as { field: unknown; op: unknown; value?: unknown };
  if (typeof field !== 'string' || typeof op !== 'string' || takesList(op as FilterOp)) return undefined;
  if (value !== undefined && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  return { field, op: op as FilterOp, value: value === undefined ? '' : String(value) };
}

/**
 * The match's problems by the filter rules the server applies, as one message; a templated value
 * is left to the run.
 */
export function matchProblem(match: RecordMatch, fields: readonly DataField[]): string | undefined {
  if (match.field === '') return 'Choose a field';
  if (!takesNoValue(match.op) && match.value.trim() === '') return 'Give the value to match, or a template';
  const result = validateFilterTree(filterOfMatch(match, fields), [...fields]);
  if (result.ok) return undefined;
  const problems = result.errors.filter((error) => !(error.field === 'filter.value' && holdsTemplate(match.value)));
  return problems[0]?.message;
}
