import { useId } from 'react';
import type { DataField } from '../data-models/types';
import { SelectField, TextField } from '../forms/fields';
import { OP_LABELS, takesNoValue } from '../records/filter-builder';
import { matchTargets, type RecordMatch } from './record-match';

export interface RecordMatchEditorProps {
  fields: readonly DataField[] | undefined;
  value: RecordMatch;
  onChange: (value: RecordMatch) => void;
  templateSuggestions: string[];
  error?: string;
}

/** The record to update, found by one field's value: the field, how it compares, the value or a template. */
export function RecordMatchEditor({ fields, value, onChange, templateSuggestions, error }: RecordMatchEditorProps) {
  const id = useId();
  if (!fields) return <p className="field-hint">Loading the model’s fields…</p>;
  const targets = matchTargets(fields);
  const target = targets.find((candidate) => candidate.key === value.field);
  const ops = target?.ops ?? [];
  const suggestions = [...(target?.options ?? []).map((option) => option.value), ...templateSuggestions];
  return (
    <div className="automation-row">
      <SelectField
        label="Field"
        value={value.field}
        options={[{ value: '', label: 'Choose a field' }, ...targets.map((candidate) => ({ value: candidate.key, label: candidate.label }))]}
        onChange={(field) => {
          const next = targets.find((candidate) => candidate.key === field);
          onChange({ field, op: next?.ops.includes(value.op) ? value.op : (next?.ops[0] ?? 'eq'), value: value.value });
        }}
        error={value.field === '' ? error : undefined}
        required
      />
      {target ? <SelectField label="Is" value={value.op} options={ops.map((op) => ({ value: op, label: OP_LABELS[op] }))} onChange={(op) => onChange({ ...value, op })} /> : null}
      {target && !takesNoValue(value.op) ? (
        <>
          <TextField
            label="Value"
            hint={<>A value, or a template such as <code>{'{{input.ref}}'}</code>.</>}
            value={value.value}
            onChange={(text) => onChange({ ...value, value: text })}
            error={error}
            list={`${id}-values`}
            data-template="match"
            spellCheck={false}
            required
          />
          <datalist id={`${id}-values`}>
            {suggestions.map((suggestion) => (
              <option key={suggestion} value={suggestion} />
            ))}
          </datalist>
        </>
      ) : null}
    </div>
  );
}
