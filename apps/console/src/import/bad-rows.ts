import { toCsvText } from './csv-text';
import type { RowsChecked } from './row-check';

/**
 * The bad rows as a CSV to fix in a spreadsheet: the file's own columns, then one more that says
 * what is wrong with each row. Fixed and with that column left as it is, it imports again.
 */
export function badRowsCsv(headers: readonly string[], rows: readonly (readonly string[])[], invalid: RowsChecked['invalid'], columnNames: (fieldKey: string) => string): string {
  const problems = (errors: RowsChecked['invalid'][number]['errors']) =>
    errors.map((error) => `${error.column === null ? columnNames(error.fieldKey) : headers[error.column] || `Column ${error.column + 1}`}: ${error.message}`).join('; ');
  return toCsvText(
    [...headers, 'Import errors'],
    invalid.map(({ row, errors }) => [...(rows[row] ?? []), problems(errors)]),
  );
}
