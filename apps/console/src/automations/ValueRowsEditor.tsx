import { useId } from 'react';
import type { DataField } from '../data-models/types';
import { errorAt } from '../forms/error-paths';
import { SelectField, TextField } from '../forms/fields';
import { editableFields } from '../records/record-form';
import { RecordValueInput } from '../records/RecordValueInput';
import { emptyRow, type ValueRow } from './action-values';

export interface ValueRowsEditorProps {
  /** `actions[0]`: errors are keyed below it, `actions[0].data.<field>`. */
  at: string;
  fields: readonly DataField[] | undefined;
  rows: ValueRow[];
  onChange: (rows: ValueRow[]) => void;
  /** The id of the datalist of placeholders the trigger offers, suggested as a template is typed. */
  placeholdersListId: string;
  errors: Record<string, string>;
}

const TEMPLATE_HINT = 'Filled in when it runs: insert the variables listed beside.';

/** The values a record action writes: one row per chosen field, typed by its field, or a template. */
export function ValueRowsEditor({ at, fields, rows, onChange, placeholdersListId, errors }: ValueRowsEditorProps) {
  const id = useId();
  if (!fields) return <p className="field-hint">Loading the model’s fields… (values already saved stay as they are)</p>;
  const writable = editableFields(fields);
  const unused = writable.filter((field) => !rows.some((row) => row.field === field.key));
  const setRow = (index: number, row: ValueRow) => onChange(rows.map((current, at) => (at === index ? row : current)));
  return (
    <fieldset className="field automation-values" aria-describedby={errors[`${at}.data`] ? `${id}-error` : undefined}>
      <legend>Values</legend>
      {rows.length === 0 ? <p className="field-hint">No values yet: add the fields to set.</p> : null}
      {rows.map((row, index) => {
        const field = writable.find((candidate) => candidate.key === row.field);
        const error = errorAt(errors, `${at}.data.${row.field}`);
        const label = field?.name ?? row.field;
        return (
          <div className="automation-value" key={row.field}>
            {row.mode === 'template' ? (
              <TextField label={`${label} (template)`} hint={TEMPLATE_HINT} value={row.template} onChange={(template) => setRow(index, { ...row, template })} error={error} spellCheck={false} required={field?.required} list={placeholdersListId} data-template={`data.${row.field}`} />
            ) : field && row.stored === undefined ? (
              <RecordValueInput field={field} value={row.value} onChange={(value) => setRow(index, { ...row, value })} error={error} />
            ) : (
              <div className="field">
                <span className="automation-value-label">{label}</span>
                <code>{JSON.stringify(row.stored)}</code>
                <p className="field-error">{error ?? `The model has no field “${row.field}” any more: remove it.`}</p>
              </div>
            )}
            <div className="automation-value-tools">
              {field ? (
                <label className="choice automation-template-switch">
                  <input
                    type="checkbox"
                    aria-label={`Template for ${label}`}
                    checked={row.mode === 'template'}
                    onChange={(event) => setRow(index, { ...row, mode: event.target.checked ? 'template' : 'value', stored: undefined })}
                  />
                  Template
                </label>
              ) : null}
              <button type="button" className="button button-small button-danger-quiet" onClick={() => onChange(rows.filter((_, at) => at !== index))} aria-label={`Remove ${label}`}>
                Remove
              </button>
            </div>
          </div>
        );
      })}
      {unused.length > 0 ? (
        <SelectField
          label="Add a field"
          value=""
          options={[{ value: '', label: 'Choose a field…' }, ...unused.map((field) => ({ value: field.key, label: `${field.name}${field.required ? ' *' : ''}` }))]}
          onChange={(key) => {
            const field = unused.find((candidate) => candidate.key === key);
            if (field) onChange([...rows, emptyRow(field)]);
          }}
        />
      ) : null}
      {errors[`${at}.data`] ? (
        <p id={`${id}-error`} className="field-error">
          {errors[`${at}.data`]}
        </p>
      ) : null}
    </fieldset>
  );
}
