import { compileRecordValidator } from '@mrp/field-validation';
import type { DataField } from '../data-models/types';
import { rootOfPath } from '../forms/error-paths';
import { cellReader, NO_VALUE, type CellReader } from './cell-values';
import type { ColumnMapping } from './column-mapping';
import { relationCell, type RelationTitles } from './relation-titles';

/** One refusal of a row: the column it belongs to (null when no column fills its field). */
export interface CellError {
  column: number | null;
  fieldKey: string;
  message: string;
}

export type RowResult = { ok: true; data: Record<string, unknown> } | { ok: false; errors: CellError[] };

export interface RowsChecked {
  /** Rows the rules accept, by index among the data rows, with the record data to send. */
  valid: Array<{ row: number; data: Record<string, unknown> }>;
  /** Rows they refuse, by index, with every refusal. */
  invalid: Array<{ row: number; errors: CellError[] }>;
}

/**
 * A checker of CSV rows against the model's fields, compiled once: each row's cells are read into
 * record data as its columns are mapped, then validated by field-validation's record rules for a
 * create, the ones the server applies to `records.createMany`, with the same messages.
 */
export function rowChecker(fields: readonly DataField[], mapping: ColumnMapping, titles?: RelationTitles): (cells: readonly string[]) => RowResult {
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const readers: Array<{ column: number; key: string; read: CellReader }> = [];
  const relations: Array<{ column: number; field: DataField }> = [];
  const columnOf = new Map<string, number>();
  mapping.forEach((key, column) => {
    const field = key === null ? undefined : byKey.get(key);
    if (!field) return;
    if (field.type === 'RELATION') relations.push({ column, field });
    else readers.push({ column, key: field.key, read: cellReader(field) });
    columnOf.set(field.key, column);
  });
  const validate = compileRecordValidator([...fields]);
  return (cells) => {
    const data: Record<string, unknown> = {};
    for (const { column, key, read } of readers) {
      const value = read(cells[column] ?? '');
      if (value !== NO_VALUE) data[key] = value;
    }
    // A related record by its title: found beforehand (lookUpTitles), or the cell's own error.
    const titleErrors: CellError[] = [];
    for (const { column, field } of relations) {
      const text = (cells[column] ?? '').trim();
      if (text === '') continue;
      const read = relationCell(field, text, titles);
      if ('error' in read) titleErrors.push({ column, fieldKey: field.key, message: read.error });
      else data[field.key] = read.value;
    }
    const unresolved = new Set(titleErrors.map((error) => error.fieldKey));
    const result = validate(data, { mode: 'create' });
    if (result.ok && titleErrors.length === 0) return { ok: true, data };
    const errors = [
      ...titleErrors,
      ...(result.ok ? [] : result.errors)
        .map((error) => {
          const fieldKey = rootOfPath(error.field);
          return { column: columnOf.get(fieldKey) ?? null, fieldKey, message: error.message };
        })
        // A title that found no record leaves its field unset: "required" would say it twice.
        .filter((error) => !unresolved.has(error.fieldKey)),
    ];
    // In the file's order: left to right, what no column fills last.
    return { ok: false, errors: errors.sort((a, b) => (a.column ?? Infinity) - (b.column ?? Infinity)) };
  };
}

export function checkRows(fields: readonly DataField[], mapping: ColumnMapping, rows: readonly (readonly string[])[], titles?: RelationTitles): RowsChecked {
  const check = rowChecker(fields, mapping, titles);
  const checked: RowsChecked = { valid: [], invalid: [] };
  rows.forEach((cells, row) => {
    const result = check(cells);
    if (result.ok) checked.valid.push({ row, data: result.data });
    else checked.invalid.push({ row, errors: result.errors });
  });
  return checked;
}

/** A data row's number as a spreadsheet shows it: row 1 is the header. */
export const spreadsheetRow = (row: number) => row + 2;
