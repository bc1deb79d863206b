import { useId } from 'react';
import type { ActionType } from '../api/automation-types';
import { RadioGroup, SelectField, TextAreaField, TextField, type Option } from '../forms/fields';
import type { ActionFormValues } from './action-form';
import { emptyAction } from './action-form';

const ACTION_OPTIONS: Option<ActionType>[] = [
  { value: 'create-record', label: 'Create a record' },
  { value: 'update-record', label: 'Update a record' },
  { value: 'notify', label: 'Notify people' },
];

const TEMPLATE_HINT = (
  <>
    A JSON object keyed by field key. Strings may use <code>{'{{input.x}}'}</code>, <code>{'{{event.payload.x}}'}</code> (event
    triggers) and <code>{'{{now}}'}</code>.
  </>
);

export interface ActionEditorProps {
  index: number;
  count: number;
  value: ActionFormValues;
  onChange: (value: ActionFormValues) => void;
  onMove: (offset: -1 | 1) => void;
  onRemove: () => void;
  models: string[];
  roles: Option[];
  errors: Record<string, string>;
}

/** One action of the list: its type, what that type needs, and its place in the order. */
export function ActionEditor({ index, count, value, onChange, onMove, onRemove, models, roles, errors }: ActionEditorProps) {
  const id = useId();
  const at = `actions[${index}]`;
  const set = <K extends keyof ActionFormValues>(key: K, next: ActionFormValues[K]) => onChange({ ...value, [key]: next });
  const number = index + 1;
  return (
    <fieldset className="card field action-editor">
      <legend>Action {number}</legend>
      {errors[at] ? <p className="field-error">{errors[at]}</p> : null}
      <SelectField label={`Action ${number} type`} value={value.type} options={ACTION_OPTIONS} onChange={(type) => onChange({ ...emptyAction(type), model: value.model })} />
      {value.type !== 'notify' ? (
        <>
          <TextField label="Model" hint="The model’s key." value={value.model} onChange={(model) => set('model', model)} error={errors[`${at}.model`]} list={`${id}-models`} spellCheck={false} required />
          <datalist id={`${id}-models`}>
            {models.map((model) => (
              <option key={model} value={model} />
            ))}
          </datalist>
        </>
      ) : null}
      {value.type === 'update-record' ? (
        <>
          <RadioGroup
            label="Find the record by"
            name={`${id}-target`}
            value={value.target}
            options={[
              { value: 'recordId', label: 'Its id' },
              { value: 'filter', label: 'A filter matching exactly one record' },
            ]}
            onChange={(target) => set('target', target)}
          />
          {value.target === 'recordId' ? (
            <TextField label="Record id" hint={<>An id or a template, e.g. <code>{'{{event.payload.recordId}}'}</code></>} value={value.recordId} onChange={(recordId) => set('recordId', recordId)} error={errors[`${at}.recordId`]} spellCheck={false} required />
          ) : (
            <TextAreaField
              label="Filter"
              hint={<>A filter tree, e.g. <code>{'{ "field": "ref", "op": "eq", "value": "{{input.ref}}" }'}</code></>}
              value={value.filterJson}
              onChange={(filterJson) => set('filterJson', filterJson)}
              error={errors[`${at}.filter`]}
              rows={3}
              spellCheck={false}
              className="code"
              required
            />
          )}
        </>
      ) : null}
      {value.type !== 'notify' ? (
        <TextAreaField label="Values" hint={TEMPLATE_HINT} value={value.dataJson} onChange={(dataJson) => set('dataJson', dataJson)} error={errors[`${at}.data`]} rows={4} spellCheck={false} className="code" required />
      ) : (
        <>
          <TextField label="Title" value={value.title} onChange={(title) => set('title', title)} error={errors[`${at}.title`]} maxLength={500} required />
          <TextAreaField label="Message" value={value.body} onChange={(body) => set('body', body)} error={errors[`${at}.body`]} rows={3} maxLength={5000} />
          <SelectField label="Everyone holding the role" value={value.role} options={[{ value: '', label: 'No role' }, ...roles]} onChange={(role) => set('role', role)} error={errors[`${at}.role`]} />
          <TextField label="Members by id" hint="User ids, separated by commas." value={value.userIds} onChange={(userIds) => set('userIds', userIds)} error={errors[`${at}.userIds`]} spellCheck={false} />
        </>
      )}
      <div className="button-row">
        <button type="button" className="button button-small" onClick={() => onMove(-1)} disabled={index === 0} aria-label={`Move action ${number} up`}>
          Move up
        </button>
        <button type="button" className="button button-small" onClick={() => onMove(1)} disabled={index === count - 1} aria-label={`Move action ${number} down`}>
          Move down
        </button>
        <button type="button" className="button button-small button-danger-quiet" onClick={onRemove} disabled={count === 1} aria-label={`Remove action ${number}`}>
          Remove
        </button>
      </div>
    </fieldset>
  );
}
