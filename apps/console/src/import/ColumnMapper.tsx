import type { DataField } from '../data-models/types';
import type { ColumnMapping } from './column-mapping';

export interface ColumnMapperProps {
  headers: readonly string[];
  /** A few first rows, to show what each column holds. */
  samples: readonly (readonly string[])[];
  fields: readonly DataField[];
  mapping: ColumnMapping;
  onChange(column: number, fieldKey: string | null): void;
}

const LEAVE_OUT = '';

/** Each CSV column with a sample of its values and the field it fills (or none). */
export function ColumnMapper({ headers, samples, fields, mapping, onChange }: ColumnMapperProps) {
  return (
    <div className="table-wrap import-table-wrap">
      <table className="import-table">
        <thead>
          <tr>
            <th scope="col">CSV column</th>
            <th scope="col" className="import-sample">
              First values
            </th>
            <th scope="col">Field</th>
          </tr>
        </thead>
        <tbody>
          {headers.map((header, column) => {
            const label = header || `Column ${column + 1}`;
            return (
              <tr key={column}>
                <th scope="row" className="import-clip">
                  {label}
                </th>
                <td className="import-clip import-sample">
                  {samples
                    .map((row) => row[column] ?? '')
                    .filter((value) => value.trim() !== '')
                    .join(', ') || '—'}
                </td>
                <td>
                  <select
                    aria-label={`Field for column ${label}`}
                    value={mapping[column] ?? LEAVE_OUT}
                    onChange={(event) => onChange(column, event.target.value === LEAVE_OUT ? null : event.target.value)}
                  >
                    <option value={LEAVE_OUT}>Don’t import</option>
                    {fields.map((field) => (
                      <option key={field.key} value={field.key}>
                        {field.name}
                        {field.required ? ' (required)' : ''}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
