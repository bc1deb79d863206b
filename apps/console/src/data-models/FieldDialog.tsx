import { useEffect, useRef, useState, type FormEvent } from 'react';
import { isRpcError, RpcError } from '../api/rpc-error';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField, TextField } from '../forms/fields';
import { useFocusFirstInvalid } from '../forms/focus-invalid';
import { useSignedIn } from '../session/session-context';
import { FieldConfigEditor } from './FieldConfigEditor';
import { checkFieldForm, EMPTY_FIELD_FORM, errorsByPath, formFromField, formIsIndexable, keyFromName, KEY_RULE_MESSAGE, type FieldFormValues } from './field-config-form';
import { FIELD_TYPE_INFO, FIELD_TYPE_OPTIONS } from './field-types';
import type { DataField, DataModel } from './types';
import { FormFooter } from '../components/FormFooter';

/** Paths of the procedures' input this dialog has an input for (every setting is under `config.`). */
const shownAtInput = (path: string) => ['name', 'key', 'type', 'required', 'indexed'].includes(path) || path.startsWith('config.');

export interface FieldDialogProps {
  open: boolean;
  modelKey: string;
  /** The field to edit; adding a new one without. */
  field?: DataField;
  /** The model's fields, which formulas may refer to. */
  fields: readonly DataField[];
  models: readonly DataModel[];
  onClose: (saved?: DataField) => void;
}

/** Add a field, or change one: name, type, required, indexed and every setting of its type. */
export function FieldDialog({ open, modelKey, field, fields, models, onClose }: FieldDialogProps) {
  const { rpc } = useSignedIn();
  const creating = field === undefined;
  const isTitle = field?.key === 'title';
  const [values, setValues] = useState<FieldFormValues>(EMPTY_FIELD_FORM);
  const [keyTouched, setKeyTouched] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const focusInvalid = useFocusFirstInvalid(form);

  useEffect(() => {
    if (!open) return;
    setValues(field ? formFromField(field) : EMPTY_FIELD_FORM);
    setKeyTouched(false);
    setErrors({});
    setError(undefined);
  }, [open, field]);

  const set = <K extends keyof FieldFormValues>(key: K, value: FieldFormValues[K]) => setValues((current) => ({ ...current, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkFieldForm(values, { creating, otherFields: fields });
    setErrors(checked.errors);
    setError(undefined);
    if (!checked.input) {
      focusInvalid();
      return;
    }
    const { key, ...changes } = checked.input;
    setBusy(true);
    try {
      const saved = creating
        ? await rpc.call('dataModels.fields.create', { model: modelKey, key, ...changes })
        : await rpc.call('dataModels.fields.update', { model: modelKey, key: field.key, ...changes });
      onClose(saved);
    } catch (failure) {
      if (isRpcError(failure)) {
        const placed = failure.details.filter((detail) => shownAtInput(detail.field));
        setErrors(errorsByPath(placed));
        // Refusals shown at their inputs are said there; the notice keeps the rest and the request id.
        const rest = failure.details.filter((detail) => !shownAtInput(detail.field));
        setError(new RpcError({ code: failure.code, message: failure.message, status: failure.status, requestId: failure.requestId, details: rest }));
      } else {
        setErrors({});
        setError(failure);
      }
      focusInvalid();
    } finally {
      setBusy(false);
    }
  };

  const typeInfo = FIELD_TYPE_INFO[values.type];
  return (
    <Dialog
      open={open}
      title={creating ? 'Add field' : `Edit field ${field.name}`}
      onClose={() => onClose()}
      busy={busy}
      footer={<FormFooter formId="field-form" busy={busy} onCancel={() => onClose()} label={creating ? 'Add field' : 'Save field'} busyLabel="Saving…" />}
    >
      <form id="field-form" ref={form} onSubmit={(event) => void submit(event)} noValidate>
        <ErrorNotice error={error} />
        <TextField
          label="Name"
          value={values.name}
          onChange={(name) =>
            setValues((current) => ({ ...current, name, ...(creating && !keyTouched ? { key: keyFromName(name) } : {}) }))
          }
          error={errors.name}
          maxLength={200}
          required
          data-autofocus
        />
        {creating ? (
          <TextField
            label="Key"
            hint={`The property name in a record’s data; it never changes. ${KEY_RULE_MESSAGE}.`}
            value={values.key}
            onChange={(key) => {
              set('key', key);
              setKeyTouched(true);
            }}
            error={errors.key}
            maxLength={63}
            required
            spellCheck={false}
            autoCapitalize="off"
          />
        ) : (
          <p className="field-hint">
            Key: <code>{field.key}</code>
          </p>
        )}
        <SelectField
          label="Type"
          hint={creating ? typeInfo.description : `${typeInfo.description}. Changing the type is refused unless every stored value fits the new one.`}
          value={values.type}
          options={FIELD_TYPE_OPTIONS}
          onChange={(type) => set('type', type)}
          error={errors.type}
          disabled={isTitle}
        />
        <FieldConfigEditor type={values.type} values={values.config} onChange={(config) => set('config', config)} errors={errors} models={models} />
        {values.type !== 'FORMULA' ? (
          <div className="choice">
            <input id="field-required" type="checkbox" checked={values.required || isTitle} disabled={isTitle} onChange={(event) => set('required', event.target.checked)} aria-describedby={errors.required ? 'field-required-error' : undefined} />
            <label htmlFor="field-required">
              Required
              <span className="choice-description">Every record must have a value. Refused while a record has none.</span>
            </label>
          </div>
        ) : null}
        {errors.required ? (
          <p id="field-required-error" className="field-error">
            {errors.required}
          </p>
        ) : null}
        {formIsIndexable(values) ? (
          <div className="choice">
            <input id="field-indexed" type="checkbox" checked={values.indexed} onChange={(event) => set('indexed', event.target.checked)} />
            <label htmlFor="field-indexed">
              Indexed
              <span className="choice-description">Faster filtering and sorting by this field on large models.</span>
            </label>
          </div>
        ) : null}
        {errors.indexed ? <p className="field-error">{errors.indexed}</p> : null}
      </form>
    </Dialog>
  );
}
