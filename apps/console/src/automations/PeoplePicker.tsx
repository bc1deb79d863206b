import { useId } from 'react';
import type { Option } from '../forms/fields';

export interface PeoplePickerProps {
  people: Option[];
  chosen: string[];
  onChange: (userIds: string[]) => void;
  error?: string;
}

/** The members to notify, by name (their address beside it); the ids are what is saved. */
export function PeoplePicker({ people, chosen, onChange, error }: PeoplePickerProps) {
  const id = useId();
  const toggle = (userId: string, checked: boolean) =>
    onChange(people.map((person) => person.value).filter((candidate) => (candidate === userId ? checked : chosen.includes(candidate))));
  return (
    <fieldset className="field" aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>People to notify</legend>
      {people.length === 0 ? <p className="field-hint">Nobody to choose from.</p> : null}
      <div className="checkbox-list automation-people">
        {people.map((person) => (
          <div className="choice" key={person.value}>
            <input type="checkbox" id={`${id}-${person.value}`} checked={chosen.includes(person.value)} onChange={(event) => toggle(person.value, event.target.checked)} />
            <label htmlFor={`${id}-${person.value}`}>
              {person.label}
              {person.description && person.description !== person.label ? <span className="choice-description">{person.description}</span> : null}
            </label>
          </div>
        ))}
      </div>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
