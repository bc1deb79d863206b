import { useId } from 'react';
import { useRpcQuery } from '../api/use-rpc-query';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField, TextAreaField, TextField } from '../forms/fields';
import type { DataField } from '../data-models/types';
import { EMPTY_FILE, type FileInputs, type FormValue } from './record-form';

export interface RecordValueInputProps {
  field: DataField;
  value: FormValue;
  onChange: (value: FormValue) => void;
  error?: string;
}

/** Records of a RELATION's target offered to choose from: the first this many by title. */
export const RELATION_CHOICES = 100;

/** The input for one field's value, chosen by its type; its error is tied to it. */
export function RecordValueInput({ field, value, onChange, error }: RecordValueInputProps) {
  const common = { label: field.name, error, required: field.required };
  switch (field.type) {
    case 'LONG_TEXT':
    case 'RICH_TEXT':
      return (
        <TextAreaField
          {...common}
          hint={field.type === 'RICH_TEXT' ? 'HTML: p, br, strong, em, u, s, a, ul, ol, li, h1–h6, blockquote, code, pre.' : undefined}
          value={value as string}
          onChange={onChange}
          rows={field.type === 'RICH_TEXT' ? 4 : 3}
        />
      );
    case 'NUMBER':
      return <TextField {...common} inputMode="decimal" value={value as string} onChange={onChange} />;
    case 'BOOLEAN':
      return (
        <SelectField
          label={field.name}
          error={error}
          value={value as string}
          options={[
            { value: '', label: 'No value' },
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]}
          onChange={onChange}
          aria-required={field.required || undefined}
        />
      );
    case 'DATE':
      return <TextField {...common} type="date" value={value as string} onChange={onChange} />;
    case 'DATETIME':
      return <TextField {...common} type="datetime-local" hint="In your time zone." value={value as string} onChange={onChange} />;
    case 'SELECT':
      return (
        <SelectField
          label={field.name}
          error={error}
          value={value as string}
          options={[{ value: '', label: 'No value' }, ...optionsOf(field)]}
          onChange={onChange}
          aria-required={field.required || undefined}
        />
      );
    case 'MULTI_SELECT':
      return <ChoiceList label={field.name} required={field.required} error={error} options={optionsOf(field)} values={value as string[]} onChange={onChange} />;
    case 'RELATION':
      return <RelationInput field={field} value={value as string | string[]} onChange={onChange} error={error} />;
    case 'FILE':
      return <FileGroup legend={field.name} required={field.required} error={error} file={value as FileInputs} onChange={onChange} />;
    case 'ATTACHMENTS':
      return <Attachments field={field} files={value as FileInputs[]} onChange={onChange} error={error} />;
    case 'URL':
      return <TextField {...common} inputMode="url" spellCheck={false} value={value as string} onChange={onChange} />;
    case 'EMAIL':
      return <TextField {...common} inputMode="email" autoComplete="off" spellCheck={false} value={value as string} onChange={onChange} />;
    default:
      return <TextField {...common} value={value as string} onChange={onChange} />;
  }
}

function optionsOf(field: DataField) {
  const options = Array.isArray(field.config['options']) ? (field.config['options'] as Array<{ value: string; label?: string }>) : [];
  return options.map((option) => ({ value: option.value, label: option.label ?? option.value }));
}

interface ChoiceListProps {
  label: string;
  required: boolean;
  error?: string;
  options: Array<{ value: string; label: string }>;
  values: string[];
  onChange: (values: string[]) => void;
  hint?: string;
}

/** Checkboxes in a fieldset; the chosen values keep the order of the options. */
function ChoiceList({ label, required, error, options, values, onChange, hint }: ChoiceListProps) {
  const id = useId();
  const toggle = (value: string, checked: boolean) =>
    onChange(options.map((option) => option.value).filter((candidate) => (candidate === value ? checked : values.includes(candidate))));
  // Chosen values the options no longer list (a relation's target beyond the first page) stay chosen.
  const extra = values.filter((value) => !options.some((option) => option.value === value));
  return (
    <fieldset className="field" aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>
        {label}
        {required ? <span aria-hidden="true"> *</span> : null}
      </legend>
      {hint ? <p className="field-hint">{hint}</p> : null}
      <div className="checkbox-list">
        {[...options, ...extra.map((value) => ({ value, label: value }))].map((option) => (
          <div className="choice" key={option.value}>
            <input
              type="checkbox"
              id={`${id}-${option.value}`}
              checked={values.includes(option.value)}
              onChange={(event) => (extra.includes(option.value) ? onChange(values.filter((value) => value !== option.value)) : toggle(option.value, event.target.checked))}
            />
            <label htmlFor={`${id}-${option.value}`}>{option.label}</label>
          </div>
        ))}
        {options.length === 0 && extra.length === 0 ? <p className="field-hint">Nothing to choose from.</p> : null}
      </div>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/** Chooses records of the relation's target model, by title. */
function RelationInput({ field, value, onChange, error }: { field: DataField; value: string | string[]; onChange: (value: FormValue) => void; error?: string }) {
  const targetModel = String(field.config['targetModel'] ?? '');
  const targets = useRpcQuery('records.list', { model: targetModel, limit: RELATION_CHOICES, sort: 'title', fields: 'title' });
  const options = (targets.data?.items ?? []).map((record) => ({ value: record.id, label: record.title || record.id }));
  const hint = targets.data?.nextCursor ? `The first ${RELATION_CHOICES} records of ${targetModel} by title.` : `Records of ${targetModel}.`;
  if (targets.error) return <ErrorNotice error={targets.error} />;
  if (Array.isArray(value)) {
    return <ChoiceList label={field.name} required={field.required} error={error} options={options} values={value} onChange={onChange} hint={hint} />;
  }
  const known = value === '' || options.some((option) => option.value === value);
  return (
    <SelectField
      label={field.name}
      hint={targets.loading && !targets.data ? 'Loading records…' : hint}
      error={error}
      value={value}
      options={[{ value: '', label: 'No record' }, ...options, ...(known ? [] : [{ value, label: value }])]}
      onChange={onChange}
      aria-required={field.required || undefined}
    />
  );
}

interface FileGroupProps {
  legend: string;
  required?: boolean;
  error?: string;
  file: FileInputs;
  onChange: (file: FileInputs) => void;
  onRemove?: () => void;
}

/** A file's link, name, MIME type and size. */
function FileGroup({ legend, required = false, error, file, onChange, onRemove }: FileGroupProps) {
  const id = useId();
  const set = (key: keyof FileInputs, value: string) => onChange({ ...file, [key]: value });
  return (
    <fieldset className="field file-group" aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>
        {legend}
        {required ? <span aria-hidden="true"> *</span> : null}
      </legend>
      <div className="field-row">
        <TextField label="URL" inputMode="url" spellCheck={false} value={file.url} onChange={(value) => set('url', value)} />
        <TextField label="File name" value={file.name} onChange={(value) => set('name', value)} />
        <TextField label="MIME type" hint="e.g. application/pdf" spellCheck={false} value={file.mimeType} onChange={(value) => set('mimeType', value)} />
        <TextField label="Size (bytes)" inputMode="numeric" value={file.size} onChange={(value) => set('size', value)} />
      </div>
      {onRemove ? (
        <button type="button" className="button button-small button-danger-quiet" onClick={onRemove}>
          Remove {legend}
        </button>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function Attachments({ field, files, onChange, error }: { field: DataField; files: FileInputs[]; onChange: (files: FileInputs[]) => void; error?: string }) {
  const id = useId();
  return (
    <fieldset className="field" aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>
        {field.name}
        {field.required ? <span aria-hidden="true"> *</span> : null}
      </legend>
      {files.length === 0 ? <p className="field-hint">No files.</p> : null}
      {files.map((file, index) => (
        <FileGroup
          key={index}
          legend={`File ${index + 1}`}
          file={file}
          onChange={(changed) => onChange(files.map((existing, at) => (at === index ? changed : existing)))}
          onRemove={() => onChange(files.filter((_, at) => at !== index))}
        />
      ))}
      <button type="button" className="button button-small" onClick={() => onChange([...files, { ...EMPTY_FILE }])}>
        Add a file to {field.name}
      </button>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
