import { FORMULA_FUNCTIONS, FORMULA_RESULT_TYPES, REMINDER_LIMITS, type FieldType, type FormulaResultType } from '@mrp/field-validation';
import { errorAt } from '../forms/error-paths';
import { SelectField, TextAreaField, TextField } from '../forms/fields';
import type { ConfigFormValues, OptionRow } from './field-config-form';
import type { DataModel } from './types';

export interface FieldConfigEditorProps {
  type: FieldType;
  values: ConfigFormValues;
  onChange: (values: ConfigFormValues) => void;
  /** Errors by path (`config.options[1].value`), as field-validation and the server report them. */
  errors: Readonly<Record<string, string>>;
  /** The models a RELATION may link to. */
  models: readonly DataModel[];
}

const BOUND_HINT = 'Leave empty for no limit.';

/** The settings of one field type, each input tied to the path its errors are reported at. */
export function FieldConfigEditor({ type, values, onChange, errors, models }: FieldConfigEditorProps) {
  const set = <K extends keyof ConfigFormValues>(key: K, value: ConfigFormValues[K]) => onChange({ ...values, [key]: value });
  const at = (path: string) => errorAt(errors, `config.${path}`);

  switch (type) {
    case 'TEXT':
    case 'LONG_TEXT':
    case 'RICH_TEXT':
      return (
        <TextField
          label="Maximum length"
          hint={type === 'TEXT' ? 'Characters; at most 1000 (the default).' : 'Characters; at most 100000 (the default).'}
          inputMode="numeric"
          value={values.maxLength}
          onChange={(value) => set('maxLength', value)}
          error={at('maxLength')}
        />
      );
    case 'NUMBER':
      return (
        <div className="field-row">
          <TextField label="Minimum" hint={BOUND_HINT} inputMode="decimal" value={values.min} onChange={(value) => set('min', value)} error={at('min')} />
          <TextField label="Maximum" hint={BOUND_HINT} inputMode="decimal" value={values.max} onChange={(value) => set('max', value)} error={at('max')} />
          <TextField
            label="Decimal places"
            hint="0 for whole numbers; empty for any."
            inputMode="numeric"
            value={values.precision}
            onChange={(value) => set('precision', value)}
            error={at('precision')}
          />
        </div>
      );
    case 'DATETIME':
      return (
        <TextField
          label="Reminders (minutes before)"
          hint={`Up to ${REMINDER_LIMITS.maxReminders}, separated by commas, e.g. “15, 1440” for 15 minutes and a day before; at most ${REMINDER_LIMITS.maxMinutesBefore} (28 days). The record’s creator is notified.`}
          value={values.reminders}
          onChange={(value) => set('reminders', value)}
          error={at('reminders')}
        />
      );
    case 'SELECT':
    case 'MULTI_SELECT':
      return (
        <>
          <OptionsEditor options={values.options} onChange={(options) => set('options', options)} errors={errors} />
          {type === 'MULTI_SELECT' ? (
            <TextField
              label="Most options a record may have"
              hint={BOUND_HINT}
              inputMode="numeric"
              value={values.maxSelected}
              onChange={(value) => set('maxSelected', value)}
              error={at('maxSelected')}
            />
          ) : null}
        </>
      );
    case 'RELATION':
      return (
        <>
          <SelectField
            label="Links to records of"
            value={values.targetModel}
            options={[{ value: '', label: 'Choose a model…' }, ...models.map((model) => ({ value: model.key, label: `${model.name} (${model.key})` }))]}
            onChange={(value) => set('targetModel', value)}
            error={at('targetModel')}
          />
          <div className="choice">
            <input id="relation-multiple" type="checkbox" checked={values.multiple} onChange={(event) => set('multiple', event.target.checked)} />
            <label htmlFor="relation-multiple">
              Several records
              <span className="choice-description">A record may link to more than one record of that model.</span>
            </label>
          </div>
        </>
      );
    case 'FORMULA':
      return (
        <>
          <TextAreaField
            label="Expression"
            hint={
              <>
                Refer to fields as <code>{'{field_key}'}</code>; numbers, &quot;text&quot;, <code>+ - * / %</code>, comparisons, <code>&amp;</code> to join
                text, and {Object.keys(FORMULA_FUNCTIONS).join(', ')}. Example: <code>{'ROUND({price} * {quantity}, 2)'}</code>
              </>
            }
            value={values.expression}
            onChange={(value) => set('expression', value)}
            error={at('expression')}
            rows={3}
            spellCheck={false}
          />
          <SelectField<FormulaResultType>
            label="Result type"
            value={values.resultType}
            options={FORMULA_RESULT_TYPES.map((result) => ({ value: result, label: result }))}
            onChange={(value) => set('resultType', value)}
            error={at('resultType')}
          />
        </>
      );
    case 'FILE':
    case 'ATTACHMENTS':
      return (
        <>
          <TextField
            label="Allowed file types"
            hint="MIME types separated by commas, e.g. “application/pdf, image/*”; empty for any."
            value={values.allowedMimeTypes}
            onChange={(value) => set('allowedMimeTypes', value)}
            error={at('allowedMimeTypes')}
            spellCheck={false}
          />
          <TextField label="Largest file (bytes)" hint={BOUND_HINT} inputMode="numeric" value={values.maxSizeBytes} onChange={(value) => set('maxSizeBytes', value)} error={at('maxSizeBytes')} />
          {type === 'ATTACHMENTS' ? (
            <TextField label="Most files" hint="1 to 100; 10 when empty." inputMode="numeric" value={values.maxFiles} onChange={(value) => set('maxFiles', value)} error={at('maxFiles')} />
          ) : null}
        </>
      );
    case 'BOOLEAN':
    case 'DATE':
    case 'URL':
    case 'EMAIL':
      return <p className="field-hint">This type has no settings.</p>;
  }
}

function OptionsEditor({ options, onChange, errors }: { options: OptionRow[]; onChange: (options: OptionRow[]) => void; errors: Readonly<Record<string, string>> }) {
  const setRow = (index: number, row: OptionRow) => onChange(options.map((option, at) => (at === index ? row : option)));
  const listError = errors['config.options'];
  return (
    <fieldset className="field" aria-describedby={listError ? 'options-error' : undefined}>
      <legend>Options</legend>
      <p className="field-hint">The value is what records store and the API returns; the label is what people see (the value when empty).</p>
      <ol className="option-rows">
        {options.map((option, index) => (
          <li key={index} className="option-row">
            <TextField
              label={`Option ${index + 1} value`}
              value={option.value}
              onChange={(value) => setRow(index, { ...option, value })}
              error={errorAt(errors, `config.options[${index}].value`) ?? (errors[`config.options[${index}]`] || undefined)}
              maxLength={100}
            />
            <TextField label={`Option ${index + 1} label`} value={option.label} onChange={(label) => setRow(index, { ...option, label })} error={errorAt(errors, `config.options[${index}].label`)} maxLength={200} />
            <TextField
              label={`Option ${index + 1} colour`}
              hint="#rrggbb or a name"
              value={option.color}
              onChange={(color) => setRow(index, { ...option, color })}
              error={errorAt(errors, `config.options[${index}].color`)}
              maxLength={32}
            />
            <button
              type="button"
              className="button button-small button-danger-quiet"
              onClick={() => onChange(options.filter((_, at) => at !== index))}
              aria-label={`Remove option ${index + 1}`}
              disabled={options.length === 1}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      <button type="button" className="button button-small" onClick={() => onChange([...options, { value: '', label: '', color: '' }])}>
        Add option
      </button>
      {listError ? (
        <p id="options-error" className="field-error">
          {listError}
        </p>
      ) : null}
    </fieldset>
  );
}
