import type { DataField } from '../data-models/types';
import { spreadsheetRow, type RowsChecked } from './row-check';

/** Bad rows listed at once; the rest are in the downloadable CSV. */
export const MAX_LISTED_ROWS = 50;

export interface RowErrorsProps {
  headers: readonly string[];
  rows: readonly (readonly string[])[];
  invalid: RowsChecked['invalid'];
  fields: readonly DataField[];
  /** A corrected cell; the rows are checked again when asked. */
  onFix(row: number, column: number, text: string): void;
}

/** Every refusal of the bad rows, by row and column, each with its cell to correct in place. */
export function RowErrors({ headers, rows, invalid, fields, onFix }: RowErrorsProps) {
  const nameOf = new Map(fields.map((field) => [field.key, field.name]));
  return (
    <div className="table-wrap import-table-wrap" role="region" aria-label="Rows with errors" tabIndex={0}>
      <table className="import-table import-errors">
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Column</th>
            <th scope="col">Value</th>
            <th scope="col" className="import-problem-column">
              Problem
            </th>
          </tr>
        </thead>
        <tbody>
          {invalid.slice(0, MAX_LISTED_ROWS).flatMap(({ row, errors }) =>
            errors.map((error, index) => {
              const column = error.column;
              const columnName = column === null ? `(${nameOf.get(error.fieldKey) ?? error.fieldKey}: no column)` : headers[column] || `Column ${column + 1}`;
              return (
                <tr key={`${row}-${index}`}>
                  <th scope="row">{spreadsheetRow(row)}</th>
                  <td className="import-clip">{columnName}</td>
                  <td>
                    {column === null ? (
                      '—'
                    ) : (
                      <input
                        type="text"
                        className="import-fix"
                        aria-label={`Row ${spreadsheetRow(row)}, ${columnName}`}
                        value={rows[row]?.[column] ?? ''}
                        onChange={(event) => onFix(row, column, event.target.value)}
                      />
                    )}
                    {/* On a phone the problem sits under its cell (the column beside it is hidden there, so it is read once). */}
                    <span className="import-problem import-problem-inline">
                      {error.message}
                    </span>
                  </td>
                  <td className="import-problem import-problem-column">{error.message}</td>
                </tr>
              );
            }),
          )}
        </tbody>
      </table>
    </div>
  );
}
