import { validateRecordData, type WriteMode } from '@mrp/field-validation';
import type { DataField } from '../data-models/types';
import { editableFields, formValuesOf, valueFromInput, type FormValue } from '../records/record-form';

/**
 * One field's value in a record action: typed with the record input of its field, or a
 * `{{template}}` rendered when the action runs.
 */
export interface ValueRow {
  field: string;
  mode: 'value' | 'template';
  value: FormValue;
  template: string;
  /** A stored value of a field the model no longer has, kept as it was until removed. */
  stored?: unknown;
}

const PLACEHOLDER = /\{\{[^{}]*\}\}/;

/** Whether any string inside `value` holds a `{{…}}` placeholder, as the server decides it. */
export function holdsTemplate(value: unknown): boolean {
  if (typeof value === 'string') return PLACEHOLDER.test(value);
  if (Array.isArray(value)) return value.some(holdsTemplate);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsTemplate);
  return false;
}

/** The input a field starts with when added to an action: empty, of its type. */
export function emptyRow(field: DataField): ValueRow {
  return { field: field.key, mode: 'value', value: formValuesOf([field])[field.key] ?? '', template: '' };
}

/** The rows of a stored action's `data`: a templated value opens as its template text. */
export function rowsOf(data: Record<string, unknown>, fields: readonly DataField[]): ValueRow[] {
  return Object.entries(data).map(([key, value]) => {
    const field = fields.find((candidate) => candidate.key === key);
    if (holdsTemplate(value) && typeof value === 'string') return { field: key, mode: 'template', value: field ? emptyRow(field).value : '', template: value };
    if (!field || holdsTemplate(value)) return { field: key, mode: 'value', value: '', template: '', stored: value };
    return { field: key, mode: 'value', value: formValuesOf([field], { data: { [key]: value } })[key] ?? '', template: '' };
  });
}

/** The rows a new action of `model` starts with: its required fields, title first. */
export function startingRows(fields: readonly DataField[]): ValueRow[] {
  return editableFields(fields)
    .filter((field) => field.required)
    .map(emptyRow);
}

/** The action's `data` from its rows. */
export function dataOf(rows: readonly ValueRow[], fields: readonly DataField[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const row of rows) {
    const field = fields.find((candidate) => candidate.key === row.field);
    if (row.mode === 'template') data[row.field] = row.template;
    else if (row.stored !== undefined || !field) data[row.field] = row.stored ?? null;
    else data[row.field] = valueFromInput(field, row.value);
  }
  return data;
}

/**
 * Checks an action's values with field-validation's record rules, the ones the server applies
 * at save and `records.create` / `records.update` when the action runs. A template stands for a
 * value of any type until a run renders it, so it is left out of the check and counts as present.
 * Errors are keyed `<at>.data.<field>`, as the server names them.
 */
export function checkValues(rows: readonly ValueRow[], fields: readonly DataField[], mode: WriteMode, at: string): Record<string, string> {
  const data = dataOf(rows, fields);
  const templated = new Set(Object.keys(data).filter((key) => holdsTemplate(data[key])));
  const checked = Object.fromEntries(Object.entries(data).filter(([key]) => !templated.has(key)));
  const errors: Record<string, string> = {};
  for (const row of rows) {
    if (row.mode === 'template' && row.template.trim() === '') errors[`${at}.data.${row.field}`] = 'Write a template, e.g. {{input.value}}';
  }
  const result = validateRecordData([...fields], checked, { mode });
  if (result.ok) return errors;
  for (const error of result.errors) {
    const key = error.field.split(/[.[]/)[0] ?? error.field;
    if (error.code === 'required' && templated.has(key)) continue;
    errors[`${at}.data.${key}`] ??= error.message;
  }
  return errors;
}
