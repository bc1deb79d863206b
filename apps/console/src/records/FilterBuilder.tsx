import { useId } from 'react';
import {
  DATE_LIST_EXAMPLE,
  newCondition,
  newGroup,
  OP_LABELS,
  takesList,
  takesNoValue,
  type ConditionDraft,
  type FilterTarget,
  type GroupDraft,
  type GroupMode,
} from './filter-builder';

export interface FilterBuilderProps {
  root: GroupDraft;
  onChange: (root: GroupDraft) => void;
  targets: readonly FilterTarget[];
  /** Errors by draft condition id. */
  errors: Readonly<Record<string, string>>;
}

/** Nested groups beyond this are refused by no rule, but are hard to read: the builder stops here. */
const MAX_GROUP_DEPTH = 3;

const MODES: Array<{ value: GroupMode; label: string }> = [
  { value: 'all', label: 'all of' },
  { value: 'any', label: 'any of' },
  { value: 'none', label: 'none of' },
];

/** Conditions in and / or / none-of groups, each operator offered only where the field type allows it. */
export function FilterBuilder({ root, onChange, targets, errors }: FilterBuilderProps) {
  return <Group group={root} onChange={onChange} targets={targets} errors={errors} depth={1} label="Records matching" />;
}

interface GroupProps {
  group: GroupDraft;
  onChange: (group: GroupDraft) => void;
  onRemove?: () => void;
  targets: readonly FilterTarget[];
  errors: Readonly<Record<string, string>>;
  depth: number;
  label: string;
}

function Group({ group, onChange, onRemove, targets, errors, depth, label }: GroupProps) {
  const modeId = useId();
  const replace = (index: number, child: GroupDraft['children'][number]) =>
    onChange({ ...group, children: group.children.map((existing, at) => (at === index ? child : existing)) });
  const remove = (index: number) => onChange({ ...group, children: group.children.filter((_, at) => at !== index) });
  const first = targets[0];
  return (
    <fieldset className="filter-group">
      <legend className="visually-hidden">{label}</legend>
      <div className="filter-group-head">
        <label htmlFor={modeId}>{label}</label>
        <select id={modeId} value={group.mode} onChange={(event) => onChange({ ...group, mode: event.target.value as GroupMode })}>
          {MODES.map((mode) => (
            <option key={mode.value} value={mode.value}>
              {mode.label}
            </option>
          ))}
        </select>
        <span>these conditions</span>
        {onRemove ? (
          <button type="button" className="button button-small button-danger-quiet" onClick={onRemove}>
            Remove group
          </button>
        ) : null}
      </div>
      {group.children.length === 0 ? <p className="field-hint">No conditions: every record matches.</p> : null}
      <ol className="filter-children">
        {group.children.map((child, index) =>
          child.kind === 'group' ? (
            <li key={child.id}>
              <Group
                group={child}
                onChange={(changed) => replace(index, changed)}
                onRemove={() => remove(index)}
                targets={targets}
                errors={errors}
                depth={depth + 1}
                label={`Group ${index + 1}: records matching`}
              />
            </li>
          ) : (
            <li key={child.id}>
              <Condition
                condition={child}
                number={index + 1}
                onChange={(changed) => replace(index, changed)}
                onRemove={() => remove(index)}
                targets={targets}
                error={errors[child.id]}
              />
            </li>
          ),
        )}
      </ol>
      <div className="button-row">
        {first ? (
          <button type="button" className="button button-small" onClick={() => onChange({ ...group, children: [...group.children, newCondition(first)] })}>
            Add condition
          </button>
        ) : null}
        {depth < MAX_GROUP_DEPTH && first ? (
          <button
            type="button"
            className="button button-small"
            onClick={() => onChange({ ...group, children: [...group.children, newGroup(group.mode === 'all' ? 'any' : 'all', [newCondition(first)])] })}
          >
            Add group
          </button>
        ) : null}
      </div>
    </fieldset>
  );
}

interface ConditionProps {
  condition: ConditionDraft;
  number: number;
  onChange: (condition: ConditionDraft) => void;
  onRemove: () => void;
  targets: readonly FilterTarget[];
  error?: string;
}

function Condition({ condition, number, onChange, onRemove, targets, error }: ConditionProps) {
  const id = useId();
  const target = targets.find((candidate) => candidate.key === condition.field);
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = errorId;
  return (
    <div className="filter-condition" role="group" aria-label={`Condition ${number}`}>
      <div className="filter-condition-inputs">
        <div className="field">
          <label htmlFor={`${id}-field`}>Field</label>
          <select
            id={`${id}-field`}
            value={condition.field}
            onChange={(event) => {
              const next = targets.find((candidate) => candidate.key === event.target.value);
              if (next) onChange({ ...newCondition(next), id: condition.id });
            }}
          >
            {targets.map((candidate) => (
              <option key={candidate.key} value={candidate.key}>
                {candidate.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-op`}>Operator</label>
          <select id={`${id}-op`} value={condition.op} onChange={(event) => onChange({ ...condition, op: event.target.value as ConditionDraft['op'] })}>
            {(target?.ops ?? []).map((op) => (
              <option key={op} value={op}>
                {OP_LABELS[op]}
              </option>
            ))}
          </select>
        </div>
        {target && !takesNoValue(condition.op) ? (
          <ValueInput id={`${id}-value`} condition={condition} target={target} onChange={onChange} invalid={Boolean(error)} describedBy={describedBy} />
        ) : null}
        <button type="button" className="button button-small button-danger-quiet filter-remove" onClick={onRemove} aria-label={`Remove condition ${number}`}>
          Remove
        </button>
      </div>
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

interface ValueInputProps {
  id: string;
  condition: ConditionDraft;
  target: FilterTarget;
  onChange: (condition: ConditionDraft) => void;
  invalid: boolean;
  describedBy?: string;
}

function ValueInput({ id, condition, target, onChange, invalid, describedBy }: ValueInputProps) {
  const aria = { 'aria-invalid': invalid || undefined, 'aria-describedby': describedBy };
  const setValue = (value: string) => onChange({ ...condition, value });
  const list = takesList(condition.op);
  if (target.operand === 'option' && target.options) {
    if (list) {
      return (
        <fieldset className="field filter-options" {...aria}>
          <legend>Values</legend>
          {target.options.map((option) => (
            <div className="choice" key={option.value}>
              <input
                type="checkbox"
                id={`${id}-${option.value}`}
                checked={condition.values.includes(option.value)}
                onChange={(event) =>
                  onChange({
                    ...condition,
                    values: event.target.checked ? [...condition.values, option.value] : condition.values.filter((value) => value !== option.value),
                  })
                }
              />
              <label htmlFor={`${id}-${option.value}`}>{option.label}</label>
            </div>
          ))}
        </fieldset>
      );
    }
    return (
      <div className="field">
        <label htmlFor={id}>Value</label>
        <select id={id} value={condition.value} onChange={(event) => setValue(event.target.value)} {...aria}>
          <option value="">Choose…</option>
          {target.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
    );
  }
  if (target.operand === 'boolean' && !list) {
    return (
      <div className="field">
        <label htmlFor={id}>Value</label>
        <select id={id} value={condition.value} onChange={(event) => setValue(event.target.value)} {...aria}>
          <option value="">Choose…</option>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </select>
      </div>
    );
  }
  const type = list ? 'text' : target.operand === 'date' ? 'date' : target.operand === 'datetime' ? 'datetime-local' : 'text';
  const shape = list ? DATE_LIST_EXAMPLE[target.operand] : undefined;
  const shapeId = `${id}-shape`;
  return (
    <div className="field">
      <label htmlFor={id}>{list ? 'Values (separated by commas)' : 'Value'}</label>
      <input
        id={id}
        type={type}
        inputMode={target.operand === 'number' ? 'decimal' : undefined}
        value={condition.value}
        onChange={(event) => setValue(event.target.value)}
        spellCheck={false}
        {...aria}
        aria-describedby={[shape ? shapeId : undefined, describedBy].filter(Boolean).join(' ') || undefined}
      />
      {shape ? (
        <p id={shapeId} className="field-hint">
          {shape}
        </p>
      ) : null}
    </div>
  );
}
