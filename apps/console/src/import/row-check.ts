import { compileRecordValidator } from '@mrp/field-validation';
import type { DataField } from '../data-models/types';
import { rootOfPath } from '../forms/error-paths';
import { cellReader, NO_VALUE, type CellReader } from './cell-values';
import type { ColumnMapping } from './column-mapping';

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
export function rowChecker(fields: readonly DataField[], mapping: ColumnMapping): (cells: readonly string[]) => RowResult {
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const readers: Array<{ column: number; key: string; read: CellReader }> = [];
  const columnOf = new Map<string, number>();
  mapping.forEach((key, column) => {
    const field = key === null ? undefined : byKey.get(key);
    if (!field) return;
    readers.push({ column, key: field.key, read: cellReader(field) });
    columnOf.set(field.key, column);
  });
  const validate = compileRecordValidator([...fields]);
  return (cells) => {
    const data: Record<string, unknown> = {};
    for (const { column, key, read } of readers) {
      const value = read(cells[column] ?? '');
      if (value !== NO_VALUE) data[key] = value;
    }
    const result = validate(data, { mode: 'create' });
    if (result.ok) return { ok: true, data };
    const errors = result.errors.map((error) => {
      const fieldKey = rootOfPath(error.field);
      return { column: columnOf.get(fieldKey) ?? null, fieldKey, message: error.message };
    });
    // In the file's order: left to right, what no column fills last.
    return { ok: false, errors: errors.sort((a, b) => (a.column ?? Infinity) - (b.column ?? Infinity)) };
  };
}

export function checkRows(fields: readonly DataField[], mapping: ColumnMapping, rows: readonly (readonly string[])[]): RowsChecked {
  const check = rowChecker(fields, mapping);
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
