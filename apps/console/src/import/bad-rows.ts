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

/** Offers text as a file download, without a round trip. */
export function downloadText(fileName: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started by now; the object URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
