import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface FieldFrameProps {
  label: string;
  hint?: ReactNode;
  error?: string;
}

/** Ids that tie a control to its hint and error, so screen readers read them with the label. */
function useFieldIds(hint: unknown, error: unknown) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return { id, hintId, errorId, describedBy: [hintId, errorId].filter(Boolean).join(' ') || undefined };
}

function Messages({ hint, hintId, error, errorId }: { hint?: ReactNode; hintId?: string; error?: string; errorId?: string }) {
  return (
    <>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </>
  );
}

type TextFieldProps = FieldFrameProps &
  Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & { value: string; onChange: (value: string) => void };

export function TextField({ label, hint, error, value, onChange, required, ...input }: TextFieldProps) {
  const { id, hintId, errorId, describedBy } = useFieldIds(hint, error);
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {required ? <span aria-hidden="true"> *</span> : null}
      </label>
      <input
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        aria-required={required || undefined}
        {...input}
      />
      <Messages hint={hint} hintId={hintId} error={error} errorId={errorId} />
    </div>
  );
}

type TextAreaFieldProps = FieldFrameProps &
  Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'onChange' | 'value'> & { value: string; onChange: (value: string) => void };

export function TextAreaField({ label, hint, error, value, onChange, required, ...textarea }: TextAreaFieldProps) {
  const { id, hintId, errorId, describedBy } = useFieldIds(hint, error);
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {required ? <span aria-hidden="true"> *</span> : null}
      </label>
      <textarea
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        aria-required={required || undefined}
        {...textarea}
      />
      <Messages hint={hint} hintId={hintId} error={error} errorId={errorId} />
    </div>
  );
}

export interface Option<V extends string = string> {
  value: V;
  label: string;
  description?: string;
}

type SelectFieldProps<V extends string> = FieldFrameProps &
  Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange' | 'value'> & { value: V; options: Option<V>[]; onChange: (value: V) => void };

export function SelectField<V extends string>({ label, hint, error, value, options, onChange, ...select }: SelectFieldProps<V>) {
  const { id, hintId, errorId, describedBy } = useFieldIds(hint, error);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value as V)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        {...select}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <Messages hint={hint} hintId={hintId} error={error} errorId={errorId} />
    </div>
  );
}

interface RadioGroupProps<V extends string> extends FieldFrameProps {
  name: string;
  value: V;
  options: Option<V>[];
  onChange: (value: V) => void;
}

/** Radio buttons in a fieldset: arrow keys move between them, as the browser does for a group. */
export function RadioGroup<V extends string>({ label, hint, error, name, value, options, onChange }: RadioGroupProps<V>) {
  const { id, hintId, errorId, describedBy } = useFieldIds(hint, error);
  return (
    <fieldset className="field" aria-describedby={describedBy}>
      <legend>{label}</legend>
      {options.map((option) => (
        <div className="choice" key={option.value}>
          <input
            type="radio"
            id={`${id}-${option.value}`}
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          <label htmlFor={`${id}-${option.value}`}>
            {option.label}
            {option.description ? <span className="choice-description">{option.description}</span> : null}
          </label>
        </div>
      ))}
      <Messages hint={hint} hintId={hintId} error={error} errorId={errorId} />
    </fieldset>
  );
}

interface CheckboxGroupProps extends FieldFrameProps {
  values: ReadonlySet<string>;
  options: Option[];
  onChange: (values: Set<string>) => void;
  /** Shown when there is nothing to choose from. */
  empty?: string;
}

/** A set of checkboxes in a fieldset, e.g. the permissions of a limited key. */
export function CheckboxGroup({ label, hint, error, values, options, onChange, empty }: CheckboxGroupProps) {
  const { id, hintId, errorId, describedBy } = useFieldIds(hint, error);
  const toggle = (value: string, checked: boolean) => {
    const next = new Set(values);
    if (checked) next.add(value);
    else next.delete(value);
    onChange(next);
  };
  return (
    <fieldset className="field" aria-describedby={describedBy} aria-invalid={error ? true : undefined}>
      <legend>{label}</legend>
      {options.length === 0 && empty ? <p className="field-hint">{empty}</p> : null}
      <div className="checkbox-list">
        {options.map((option) => (
          <div className="choice" key={option.value}>
            <input
              type="checkbox"
              id={`${id}-${option.value}`}
              checked={values.has(option.value)}
              onChange={(event) => toggle(option.value, event.target.checked)}
            />
            <label htmlFor={`${id}-${option.value}`}>
              <code>{option.label}</code>
              {option.description ? <span className="choice-description">{option.description}</span> : null}
            </label>
          </div>
        ))}
      </div>
      <Messages hint={hint} hintId={hintId} error={error} errorId={errorId} />
    </fieldset>
  );
}
