import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { DataField } from '../data-models/types';
import { useSignedIn } from '../session/session-context';
import type { CellMove } from './CellEditor';

export interface RelatedRecord {
  id: string;
  title: string;
}

/** Records offered per search. */
const MATCHES = 20;
const SEARCH_DELAY_MS = 200;

interface RelationPickerProps {
  field: DataField;
  label: string;
  multiple: boolean;
  chosen: RelatedRecord[];
  invalid: boolean;
  describedBy?: string;
  onCommit(records: RelatedRecord[], move: CellMove): void;
  onCancel(): void;
}

/**
 * Chooses records of the relation's target model by title: typing searches it (`q`), arrows move,
 * Enter or a click chooses. One record replaces the value; for a multiple relation it is added, and
 * Enter with nothing typed saves the list.
 */
export function RelationPicker({ field, label, multiple, chosen: initial, invalid, describedBy, onCommit, onCancel }: RelationPickerProps) {
  const { rpc } = useSignedIn();
  const targetModel = String(field.config['targetModel'] ?? '');
  const [query, setQuery] = useState('');
  const [matches, setMatches] = useState<RelatedRecord[]>([]);
  const [searching, setSearching] = useState(true);
  const [failed, setFailed] = useState(false);
  const [active, setActive] = useState(0);
  const [chosen, setChosen] = useState(initial);
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);

  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    let current = true;
    setSearching(true);
    const timer = setTimeout(() => {
      const q = query.trim();
      rpc
        .call('records.list', { model: targetModel, limit: MATCHES, sort: 'title', fields: 'title', ...(q ? { q } : {}) })
        .then((page) => {
          if (!current) return;
          setMatches(page.items.map((record) => ({ id: record.id, title: record.title })));
          setFailed(false);
          setActive(0);
        })
        .catch(() => current && setFailed(true))
        .finally(() => current && setSearching(false));
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [rpc, targetModel, query]);

  const commit = (records: RelatedRecord[], move: CellMove) => {
    if (done.current) return;
    done.current = true;
    onCommit(records, move);
  };
  const pick = (record: RelatedRecord | undefined) => {
    if (!record) return;
    // A new choice may be saved again, even where the last one was refused.
    done.current = false;
    if (!multiple) {
      commit([record], 'down');
      return;
    }
    setChosen((current) => (current.some((item) => item.id === record.id) ? current : [...current, record]));
    setQuery('');
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((index) => Math.min(matches.length - 1, Math.max(0, index + (event.key === 'ArrowDown' ? 1 : -1))));
    } else if (event.key === 'Escape') {
      event.preventDefault();
      done.current = true;
      onCancel();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (multiple && query.trim() === '') commit(chosen, 'down');
      else pick(matches[active]);
    } else if (event.key === 'Tab') {
      event.preventDefault();
      commit(chosen, event.shiftKey ? 'left' : 'right');
    }
  };

  return (
    <div className="relation-picker">
      {chosen.length > 0 && (multiple || query === '') ? (
        <ul className="chips relation-chosen" aria-label={`Chosen ${label}`}>
          {chosen.map((record) => (
            <li key={record.id} className="chip chip-plain">
              {record.title}
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove ${record.title}`}
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => {
                  const rest = chosen.filter((item) => item.id !== record.id);
                  if (multiple) setChosen(rest);
                  else commit([], 'stay');
                }}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <input
        ref={input}
        role="combobox"
        aria-label={`Search ${targetModel} for ${label}`}
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={matches[active] ? `${listId}-${active}` : undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        placeholder={`Search ${targetModel}…`}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => (multiple ? commit(chosen, 'stay') : onCancel())}
      />
      <ul id={listId} role="listbox" className="option-list" aria-label={`${targetModel} records`} aria-busy={searching || undefined}>
        {matches.map((record, index) => (
          <li
            key={record.id}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={chosen.some((item) => item.id === record.id)}
            className={index === active ? 'active' : undefined}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => pick(record)}
          >
            {record.title || record.id}
          </li>
        ))}
        {!searching && matches.length === 0 ? <li className="muted">{failed ? 'The search failed; type to try again.' : 'No matching records.'}</li> : null}
      </ul>
    </div>
  );
}
