import type { RecordOutput } from './schemas';

/** A cell a spreadsheet would read as a formula starts with one of these; such text gets a leading `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A related record as `expand` answers it. */
function isExpandedRelation(value: unknown): value is { id: string; title?: string } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { id?: unknown }).id === 'string';
}

/**
 * The text of one value in a CSV cell: numbers as JSON writes them, booleans true/false, dates and
 * times as stored (ISO 8601), lists and objects (MULTI_SELECT, FILE, ATTACHMENTS, a multiple
 * RELATION) as JSON, a RELATION's id, or with `expand` its title (the id alone when the caller may
 * not read it). Only text that came from the record's own strings is guarded against formula
 * injection: a negative NUMBER stays a number.
 */
export function csvValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return FORMULA_START.test(value) ? `'${value}` : value;
  // What String() writes, but not through V8's cache of number strings, which keeps each string
  // past a young collection: an export of a million numbers then grew the old space (decision 164).
  // (JSON writes a non-finite number, which jsonb's numeric can hold beyond a double, as null.)
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (isExpandedRelation(value)) return csvValue(value.title ?? value.id);
  if (Array.isArray(value) && value.every(isExpandedRelation)) return JSON.stringify(value.map((related) => related.title ?? related.id));
  const json = JSON.stringify(value);
  return FORMULA_START.test(json) ? `'${json}` : json;
}

/** One CSV line (RFC 4180): a cell holding a quote, comma or line break is quoted, its quotes doubled; CRLF ends it. */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The header line: id, the exported field keys, createdAt, updatedAt. */
export function csvHeader(fieldKeys: readonly string[]): string {
  return csvLine(['id', ...fieldKeys, 'createdAt', 'updatedAt']);
}

/** A cell as RFC 4180 writes it: quoted, its quotes doubled, when it holds a quote, comma or line break. */
function csvCell(cell: string): string {
  return NEEDS_QUOTES.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/**
 * One record's line; built as one string, since an export writes a million of them. A null key
 * is a column the record does not show (an empty cell), and so is a key its data does not hold.
 */
export function csvRecord(record: Pick<RecordOutput, 'id' | 'data' | 'createdAt' | 'updatedAt'>, fieldKeys: ReadonlyArray<string | null>): string {
  let line = csvCell(record.id);
  for (const key of fieldKeys) line += `,${key !== null && Object.hasOwn(record.data, key) ? csvCell(csvValue(record.data[key])) : ''}`;
  return `${line},${csvCell(record.createdAt)},${csvCell(record.updatedAt)}\r\n`;
}

/** The last line of an export that failed after its first byte, so it is never mistaken for a complete one. */
export function csvErrorTrailer(code: string, message: string): string {
  // The message may echo what a caller sent: guarded like any cell, so it never opens as a formula.
  return csvLine(['#error', csvValue(code), csvValue(message)]);
}
