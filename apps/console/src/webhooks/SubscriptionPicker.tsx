import { useId, useState } from 'react';
import { groupByModule, patternMatchesType, recordTypesOf, subscriptionProblem } from './subscription-patterns';

export interface SubscriptionPickerProps {
  /** The catalog's types a webhook can receive. */
  types: string[];
  /** Model keys, for one model's record events; empty when the models cannot be read. */
  models: string[];
  value: string[];
  onChange: (value: string[]) => void;
  error?: string;
}

/**
 * The events an endpoint subscribes to: everything, a module's prefix, single catalog types, one
 * model's record events, or a pattern typed by hand. A type already covered by a chosen prefix is
 * shown ticked and cannot be chosen again, so the list never holds the same thing twice.
 */
export function SubscriptionPicker({ types, models, value, onChange, error }: SubscriptionPickerProps) {
  const id = useId();
  const [custom, setCustom] = useState('');
  const [customError, setCustomError] = useState<string>();
  const chosen = new Set(value);
  const known = new Set(types);
  const coveredBy = (pattern: string) => value.find((other) => other !== pattern && other.endsWith('*') && patternMatchesType(other, pattern.replace(/\.\*$/, '.')));

  const toggle = (pattern: string, on: boolean) => {
    if (on) onChange([...value.filter((other) => !(pattern.endsWith('*') && other !== pattern && patternMatchesType(pattern, other.replace(/\.\*$/, '.')))), pattern]);
    else onChange(value.filter((other) => other !== pattern));
  };
  const addCustom = () => {
    const pattern = custom.trim();
    if (pattern === '') return setCustomError('Type a pattern first');
    const problem = subscriptionProblem(pattern, known);
    if (problem) return setCustomError(`"${pattern}" ${problem}`);
    if (!chosen.has(pattern)) toggle(pattern, true);
    setCustom('');
    setCustomError(undefined);
  };
  const listed = new Set([...types, ...types.map((type) => `${type.split('.')[0]}.*`), '*', ...models.flatMap((model) => [...recordTypesOf(model), `data-models.${model}.*`])]);
  const others = value.filter((pattern) => !listed.has(pattern));

  const box = (pattern: string, label: string, description?: string) => {
    const cover = coveredBy(pattern);
    return (
      <div className="choice" key={pattern}>
        <input type="checkbox" id={`${id}-${pattern}`} checked={chosen.has(pattern) || cover !== undefined} disabled={cover !== undefined} onChange={(event) => toggle(pattern, event.target.checked)} />
        <label htmlFor={`${id}-${pattern}`}>
          <code>{label}</code>
          {cover ? <span className="choice-description">Included in {cover}</span> : description ? <span className="choice-description">{description}</span> : null}
        </label>
      </div>
    );
  };
  const count = (patterns: string[]) => patterns.filter((pattern) => chosen.has(pattern)).length;

  return (
    <fieldset className="field subscription-picker" aria-describedby={error ? `${id}-error` : `${id}-hint`} aria-invalid={error ? true : undefined}>
      <legend>Events</legend>
      <p id={`${id}-hint`} className="field-hint">
        {value.length === 0 ? 'Nothing chosen yet.' : `Chosen: ${value.join(', ')}`}
      </p>
      {box('*', '*', 'Every event, including types added later')}
      {groupByModule(types).map(({ module, types: members }) => (
        <details key={module} className="picker-group">
          <summary>
            {module} <span className="choice-description-inline">({count([`${module}.*`, ...members]) || 'none'} chosen)</span>
          </summary>
          {box(`${module}.*`, `${module}.*`, `Every ${module} event`)}
          {members.map((type) => box(type, type))}
        </details>
      ))}
      {models.length > 0 ? (
        <details className="picker-group">
          <summary>One model’s records</summary>
          {models.map((model) => (
            <div key={model} className="picker-model">
              {box(`data-models.${model}.*`, `data-models.${model}.*`, `Every record event of ${model}`)}
              {recordTypesOf(model).map((type) => box(type, type))}
            </div>
          ))}
        </details>
      ) : null}
      {others.length > 0 ? (
        <div className="picker-others">
          {others.map((pattern) => box(pattern, pattern, 'Typed by hand'))}
        </div>
      ) : null}
      <div className="field picker-custom">
        <label htmlFor={`${id}-custom`}>Another pattern</label>
        <div className="inline-controls">
          <input
            id={`${id}-custom`}
            value={custom}
            placeholder="data-models.invoices.*"
            onChange={(event) => setCustom(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                addCustom();
              }
            }}
            aria-invalid={customError ? true : undefined}
            aria-describedby={customError ? `${id}-custom-error` : undefined}
          />
          <button type="button" className="button" onClick={addCustom}>
            Add
          </button>
        </div>
        {customError ? (
          <p id={`${id}-custom-error`} className="field-error">
            {customError}
          </p>
        ) : null}
      </div>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
