import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { valueKind, type ValueKind } from '@mrp/field-validation';
import type { DataField } from '../data-models/types';
import { optionsOf } from './cell-format';
import { holdsList } from './cell-editing';
import { chipStyle } from './CellValue';
import type { FormValue } from './record-form';
import { RelationPicker, type RelatedRecord } from './RelationPicker';

/** Where the active cell goes after a commit: as in a spreadsheet, Enter goes down and Tab sideways. */
export type CellMove = 'down' | 'right' | 'left' | 'stay';

export interface CellEditorProps {
  field: DataField;
  label: string;
  initial: FormValue;
  /** The value as the grid shows it (expanded relations), for the relation picker's chosen records. */
  shown: unknown;
  error?: string;
  busy: boolean;
  /** `shown` is what the row should show once saved (relations: the chosen records with titles). */
  onCommit(draft: FormValue, shown: unknown, move: CellMove): void;
  onCancel(): void;
}

function moveOf(event: KeyboardEvent): CellMove | undefined {
  if (event.key === 'Enter' && !event.shiftKey && !event.altKey) return 'down';
  if (event.key === 'Tab') return event.shiftKey ? 'left' : 'right';
  return undefined;
}

/** A cell's editor, chosen by the field's type; its error stays under it until the value passes. */
export default function CellEditor(props: CellEditorProps) {
  const { field, error } = props;
  const errorId = useId();
  const box = useRef<HTMLDivElement>(null);
  // Kept inside the grid's box: shifted left near its right edge, opened upwards near its bottom.
  useLayoutEffect(() => {
    const editorBox = box.current;
    const grid = editorBox?.closest('.records-grid');
    if (!editorBox || !grid) return;
    const bounds = grid.getBoundingClientRect();
    const rect = editorBox.getBoundingClientRect();
    if (rect.right > bounds.right) editorBox.style.left = `${Math.max(bounds.left - rect.left, bounds.right - rect.right)}px`;
    if (rect.bottom > bounds.bottom && rect.top - bounds.top > rect.height) {
      editorBox.style.top = 'auto';
      editorBox.style.bottom = '0';
    }
  });
  let editor;
  switch (field.type) {
    case 'SELECT':
    case 'MULTI_SELECT':
      editor = <OptionList {...props} errorId={error ? errorId : undefined} />;
      break;
    case 'RELATION':
      editor = (
        <RelationPicker
          field={field}
          label={props.label}
          multiple={holdsList(field)}
          chosen={relatedOf(props.shown)}
          invalid={Boolean(error)}
          describedBy={error ? errorId : undefined}
          onCommit={(records, move) => props.onCommit(holdsList(field) ? records.map((record) => record.id) : (records[0]?.id ?? ''), holdsList(field) ? records : (records[0] ?? null), move)}
          onCancel={props.onCancel}
        />
      );
      break;
    default:
      editor = <TextEditor {...props} errorId={error ? errorId : undefined} />;
  }
  return (
    <div ref={box} className="cell-editor" data-busy={props.busy || undefined}>
      {editor}
      {error ? (
        <p id={errorId} className="cell-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function relatedOf(shown: unknown): RelatedRecord[] {
  const items = Array.isArray(shown) ? shown : shown === null || shown === undefined ? [] : [shown];
  return items.map((item) =>
    typeof item === 'string' ? { id: item, title: item } : { id: (item as RelatedRecord).id, title: (item as RelatedRecord).title ?? 'Hidden record' },
  );
}

const INPUT_TYPES: Partial<Record<ValueKind, string>> = { date: 'date', datetime: 'datetime-local' };

/** One input (text, number, email, URL, date, date and time, checkbox) or, for long text, a text area. */
function TextEditor({ field, label, initial, error, onCommit, onCancel, errorId }: CellEditorProps & { errorId?: string }) {
  const [draft, setDraft] = useState(initial as string);
  const done = useRef(false);
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const kind = valueKind(field);
  useEffect(() => {
    ref.current?.focus();
    if (ref.current && 'select' in ref.current && kind !== 'date' && kind !== 'datetime') ref.current.select();
  }, [kind]);
  // A refusal re-opens the way for the next commit.
  useEffect(() => {
    done.current = false;
  }, [error]);

  const commit = (value: string, move: CellMove) => {
    if (done.current) return;
    done.current = true;
    onCommit(value, undefined, move);
  };
  // A changed value may be committed again, even where the last one was refused in the same words.
  const change = (value: string) => {
    done.current = false;
    setDraft(value);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      done.current = true;
      onCancel();
      return;
    }
    const move = moveOf(event);
    if (move) {
      event.preventDefault();
      commit(draft, move);
    }
  };
  const common = {
    ref,
    'aria-label': label,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': errorId,
    onKeyDown,
    onBlur: () => commit(draft, 'stay'),
  };
  if (kind === 'boolean') {
    return (
      <input
        {...common}
        type="checkbox"
        checked={draft === 'true'}
        onChange={(event) => change(event.target.checked ? 'true' : 'false')}
        onBlur={() => commit(draft, 'stay')}
      />
    );
  }
  if (field.type === 'LONG_TEXT' || field.type === 'RICH_TEXT') {
    return <textarea {...common} rows={4} value={draft} onChange={(event) => change(event.target.value)} />;
  }
  return (
    <input
      {...common}
      type={INPUT_TYPES[kind] ?? 'text'}
      inputMode={kind === 'number' ? 'decimal' : field.type === 'EMAIL' ? 'email' : field.type === 'URL' ? 'url' : undefined}
      spellCheck={field.type === 'TEXT' ? undefined : false}
      className={kind === 'number' ? 'numeric' : undefined}
      value={draft}
      onChange={(event) => change(event.target.value)}
    />
  );
}

/** The options of a select as coloured chips: arrows move, Enter (or a click) chooses; several for a multiple select (Space toggles). */
function OptionList({ field, label, initial, error, onCommit, onCancel, errorId }: CellEditorProps & { errorId?: string }) {
  const multiple = holdsList(field);
  const options = [...(multiple ? [] : [{ value: '', label: 'No value' }]), ...optionsOf(field).map((option) => ({ ...option, label: option.label ?? option.value }))];
  const [chosen, setChosen] = useState<string[]>(() => (Array.isArray(initial) ? (initial as string[]) : initial ? [initial as string] : []));
  const [active, setActive] = useState(() => Math.max(0, options.findIndex((option) => chosen.includes(option.value))));
  const listId = useId();
  const ref = useRef<HTMLUListElement>(null);
  const done = useRef(false);
  useEffect(() => ref.current?.focus(), []);
  useEffect(() => {
    done.current = false;
  }, [error]);

  const commit = (values: string[], move: CellMove) => {
    if (done.current) return;
    done.current = true;
    onCommit(multiple ? values : (values[0] ?? ''), undefined, move);
  };
  const toggle = (value: string) => {
    done.current = false;
    setChosen((current) => options.map((option) => option.value).filter((candidate) => (candidate === value ? !current.includes(value) : current.includes(candidate))));
  };
  const pick = (index: number) => {
    const option = options[index];
    if (!option) return;
    if (multiple) toggle(option.value);
    else {
      done.current = false;
      commit([option.value], 'down');
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((index) => Math.min(options.length - 1, Math.max(0, index + (event.key === 'ArrowDown' ? 1 : -1))));
    } else if (event.key === 'Escape') {
      event.preventDefault();
      done.current = true;
      onCancel();
    } else if (event.key === ' ' && multiple) {
      event.preventDefault();
      pick(active);
    } else if (event.key === 'Enter' && !multiple) {
      event.preventDefault();
      pick(active);
    } else {
      const move = moveOf(event);
      if (move) {
        event.preventDefault();
        commit(multiple ? chosen : (chosen[0] ? [chosen[0]] : ['']), move);
      }
    }
  };
  return (
    <ul
      ref={ref}
      id={listId}
      role="listbox"
      className="option-list"
      tabIndex={0}
      aria-label={label}
      aria-multiselectable={multiple || undefined}
      aria-activedescendant={`${listId}-${active}`}
      aria-invalid={error ? true : undefined}
      aria-describedby={errorId}
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) commit(chosen, 'stay');
      }}
    >
      {options.map((option, index) => (
        <li
          key={option.value}
          id={`${listId}-${index}`}
          role="option"
          aria-selected={chosen.includes(option.value)}
          className={index === active ? 'active' : undefined}
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => {
            setActive(index);
            pick(index);
          }}
        >
          {multiple ? <span aria-hidden="true" className="option-check">{chosen.includes(option.value) ? '✓' : ''}</span> : null}
          {option.value === '' ? (
            <span className="muted">{option.label}</span>
          ) : (
            <span className="chip" style={chipStyle('color' in option ? option.color : undefined)}>
              {option.label}
            </span>
          )}
        </li>
      ))}
      {options.length === 0 ? <li className="muted">This field has no options.</li> : null}
    </ul>
  );
}
