import { useId, useRef, type FocusEvent } from 'react';
import type { ActionType } from '../api/automation-types';
import type { DataField, DataModel } from '../data-models/types';
import { RadioGroup, SelectField, TextAreaField, TextField, type Option } from '../forms/fields';
import { emptyAction, type ActionFormValues } from './action-form';
import { PeoplePicker } from './PeoplePicker';
import { RecordMatchEditor } from './RecordMatchEditor';
import type { TemplateVariable } from './template-suggestions';
import { TemplateVariables } from './TemplateVariables';
import { ValueRowsEditor } from './ValueRowsEditor';

const ACTION_OPTIONS: Option<ActionType>[] = [
  { value: 'create-record', label: 'Create a record' },
  { value: 'update-record', label: 'Update a record' },
  { value: 'notify', label: 'Notify people' },
];

export interface ActionEditorProps {
  index: number;
  count: number;
  value: ActionFormValues;
  onChange: (value: ActionFormValues) => void;
  onMove: (offset: -1 | 1) => void;
  onRemove: () => void;
  models: DataModel[];
  /** The chosen model's live fields; absent while they load or when it cannot be read. */
  fields: readonly DataField[] | undefined;
  roles: Option[];
  people: Option[];
  /** Placeholders the trigger offers: listed beside the inputs and suggested in template inputs. */
  templateVariables: TemplateVariable[];
  errors: Record<string, string>;
}

/** Choices that keep a stored value no list offers today, so opening an automation changes nothing. */
function withCurrent(options: Option[], current: string): Option[] {
  return current === '' || options.some((option) => option.value === current) ? options : [...options, { value: current, label: `${current} (not found)` }];
}

/** One action of the list: its type, what that type needs, and its place in the order. */
export function ActionEditor({ index, count, value, onChange, onMove, onRemove, models, fields, roles, people, templateVariables, errors }: ActionEditorProps) {
  const id = useId();
  const templateSuggestions = templateVariables.map((variable) => variable.template);
  const fieldsRef = useRef<HTMLDivElement>(null);
  const lastTemplateInput = useRef<HTMLInputElement | HTMLTextAreaElement | null>(null);
  const at = `actions[${index}]`;
  const set = <K extends keyof ActionFormValues>(key: K, next: ActionFormValues[K]) => onChange({ ...value, [key]: next });
  const templateInputs = () => [...(fieldsRef.current?.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('[data-template]') ?? [])];
  const canInsert = value.type === 'notify' || value.type === 'update-record' || value.values.some((row) => row.mode === 'template');
  /** A template input's text, by its `data-template` name: `title`, `body`, `recordId`, `filterJson`, `match` or `data.<field>`. */
  const setTemplate = (name: string, text: string) => {
    if (name === 'title' || name === 'body' || name === 'recordId' || name === 'filterJson') set(name, text);
    else if (name === 'match') set('match', { ...value.match, value: text });
    else if (name.startsWith('data.')) set('values', value.values.map((row) => (row.field === name.slice('data.'.length) ? { ...row, template: text } : row)));
  };
  const insert = (variable: TemplateVariable) => {
    const inputs = templateInputs();
    const input = inputs.find((candidate) => candidate === lastTemplateInput.current) ?? inputs[0];
    const name = input?.dataset['template'];
    if (!input || !name) return;
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    setTemplate(name, input.value.slice(0, start) + variable.template + input.value.slice(end));
    // After React has written the new text: back to the input, the name to fill (if any) selected.
    const fillAt = variable.fill ? variable.template.lastIndexOf(variable.fill) : -1;
    const selectFrom = start + (fillAt >= 0 ? fillAt : variable.template.length);
    const selectTo = fillAt >= 0 ? selectFrom + (variable.fill?.length ?? 0) : selectFrom;
    requestAnimationFrame(() => {
      input.focus();
      input.setSelectionRange(selectFrom, selectTo);
    });
  };
  const rememberTemplateInput = (event: FocusEvent<HTMLDivElement>) => {
    const target = event.target;
    if ((target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) && target.dataset['template']) lastTemplateInput.current = target;
  };
  const number = index + 1;
  const modelOptions = withCurrent([{ value: '', label: 'Choose a model' }, ...models.map((model) => ({ value: model.key, label: model.name }))], value.model);
  const peopleOptions = [...people, ...value.userIds.filter((userId) => !people.some((person) => person.value === userId)).map((userId) => ({ value: userId, label: userId, description: 'Not a member any more' }))];
  return (
    <fieldset className="card field action-editor">
      <legend>Action {number}</legend>
      {errors[at] ? <p className="field-error">{errors[at]}</p> : null}
      <div className="action-editor-body">
        <div className="action-editor-fields" ref={fieldsRef} onFocus={rememberTemplateInput}>
          <SelectField label={`Action ${number} type`} value={value.type} options={ACTION_OPTIONS} onChange={(type) => onChange({ ...emptyAction(type), model: value.model, values: type === 'notify' ? [] : value.values })} />
          {value.type !== 'notify' ? (
            <SelectField
              label="Model"
              value={value.model}
              options={modelOptions}
              // A new model starts from its required fields once they are known (useAutomationEditor).
              onChange={(model) => onChange({ ...value, model, values: [], seedFromModel: true })}
              error={errors[`${at}.model`]}
              required
            />
          ) : null}
          {value.type === 'update-record' ? (
            <>
              <RadioGroup
                label="Find the record by"
                name={`${id}-target`}
                value={value.target}
                options={[
                  { value: 'recordId', label: 'Its id' },
                  { value: 'match', label: 'A field’s value' },
                  { value: 'filter', label: 'A filter in JSON, matching exactly one record' },
                ]}
                onChange={(target) => set('target', target)}
              />
              {value.target === 'match' ? (
                <RecordMatchEditor
                  fields={fields}
                  value={value.match}
                  onChange={(match) => set('match', match)}
                  templateSuggestions={templateSuggestions}
                  error={errors[`${at}.filter`] ?? Object.entries(errors).find(([key]) => key.startsWith(`${at}.filter.`))?.[1]}
                />
              ) : value.target === 'recordId' ? (
                <TextField
                  label="Record id"
                  hint={<>An id or a template, e.g. <code>{'{{event.payload.recordId}}'}</code></>}
                  value={value.recordId}
                  onChange={(recordId) => set('recordId', recordId)}
                  error={errors[`${at}.recordId`]}
                  spellCheck={false}
                  list={`${id}-placeholders`}
                  data-template="recordId"
                  required
                />
              ) : (
                <TextAreaField
                  label="Filter"
                  hint={<>A filter tree, e.g. <code>{'{ "field": "ref", "op": "eq", "value": "{{input.ref}}" }'}</code></>}
                  value={value.filterJson}
                  onChange={(filterJson) => set('filterJson', filterJson)}
                  error={errors[`${at}.filter`] ?? Object.entries(errors).find(([key]) => key.startsWith(`${at}.filter.`))?.[1]}
                  rows={3}
                  spellCheck={false}
                  className="code"
                  data-template="filterJson"
                  required
                />
              )}
            </>
          ) : null}
          <datalist id={`${id}-placeholders`}>
            {templateSuggestions.map((placeholder) => (
              <option key={placeholder} value={placeholder} />
            ))}
          </datalist>
          {value.type !== 'notify' ? (
            value.model ? <ValueRowsEditor at={at} fields={fields} rows={value.values} onChange={(values) => set('values', values)} placeholdersListId={`${id}-placeholders`} errors={errors} /> : null
          ) : (
            <>
              <TextField label="Title" hint="May use the variables." value={value.title} onChange={(title) => set('title', title)} error={errors[`${at}.title`]} maxLength={500} data-template="title" required />
              <TextAreaField label="Message" value={value.body} onChange={(body) => set('body', body)} error={errors[`${at}.body`]} rows={3} maxLength={5000} data-template="body" />
              <PeoplePicker people={peopleOptions} chosen={value.userIds} onChange={(userIds) => set('userIds', userIds)} error={errors[`${at}.userIds`]} />
              <SelectField label="Everyone holding the role" value={value.role} options={withCurrent([{ value: '', label: 'No role' }, ...roles], value.role)} onChange={(role) => set('role', role)} error={errors[`${at}.role`]} />
            </>
          )}
        </div>
        {value.type === 'notify' || value.model ? <TemplateVariables variables={templateVariables} canInsert={canInsert} onInsert={insert} /> : null}
      </div>
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
