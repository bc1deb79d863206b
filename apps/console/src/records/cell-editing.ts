import { valueKind } from '@mrp/field-validation';
import type { DataField, DataRecord } from '../data-models/types';
import { checkRecordData, formValuesOf, valueFromInput, type FormValue } from './record-form';

/** Types edited in the cell itself; files and formulas are not (files open the record's form, formulas are computed). */
export function isInlineEditable(field: DataField): boolean {
  return field.type !== 'FORMULA' && field.type !== 'FILE' && field.type !== 'ATTACHMENTS';
}

/** A field whose value is a list (a multiple select, a multiple relation): its value kind says. */
export const holdsList = (field: DataField) => valueKind(field) === 'list';

/** A stored value from what the grid holds: expanded relations (`{ id, title }`) back to their ids. */
export function storedValue(field: DataField, value: unknown): unknown {
  if (field.type !== 'RELATION') return value;
  const idOf = (item: unknown) => (typeof item === 'object' && item !== null ? (item as { id: string }).id : item);
  return Array.isArray(value) ? value.map(idOf) : value === null || value === undefined ? value : idOf(value);
}

/** The editor's starting input for a cell (the record form's input shapes). */
export function draftOf(field: DataField, value: unknown): FormValue {
  const draft = formValuesOf([field], { data: { [field.key]: storedValue(field, value) } })[field.key];
  return draft ?? '';
}

/** The value to send for an editor's input (locale numbers read where unambiguous). */
export function cellValueOf(field: DataField, draft: FormValue): unknown {
  return valueFromInput(field, draft);
}

/**
 * The field-validation rules the server applies, for one cell's change (a merge patch of that field
 * alone): the server's message for it, or undefined when it passes.
 */
export function checkCell(fields: readonly DataField[], field: DataField, value: unknown): string | undefined {
  const { errors, placed } = checkRecordData(fields, { [field.key]: value }, 'update');
  if (errors.length === 0) return undefined;
  return placed.byKey[field.key] ?? errors[0]?.message;
}

export function sameValue(field: DataField, before: unknown, after: unknown): boolean {
  const normal = (value: unknown) => {
    const stored = storedValue(field, value);
    return JSON.stringify(stored === undefined || stored === '' || (Array.isArray(stored) && stored.length === 0) ? null : stored);
  };
  return normal(before) === normal(after);
}

/**
 * The grid's row after a saved change: the server's answer (formulas recomputed), with relations
 * kept expanded: the changed one as the editor chose it (`shown`), the others as they were.
 */
export function mergeSaved(row: DataRecord, saved: DataRecord, fields: readonly DataField[], changed: DataField, shown: unknown): DataRecord {
  const data = { ...saved.data };
  for (const field of fields) {
    if (field.type !== 'RELATION') continue;
    const value = field.key === changed.key ? shown : row.data[field.key];
    if (value === undefined || value === null) delete data[field.key];
    else data[field.key] = value;
  }
  return { ...saved, data };
}
