import { useId, useMemo, useState } from 'react';
import type { TriggerType } from '../api/automation-types';
import { formatDateTime } from '../app/format';
import type { DataModel } from '../data-models/types';
import { RadioGroup, SelectField, TextField, type Option } from '../forms/fields';
import { OTHER_EVENTS, eventOptions, sourceOf } from './event-choices';
import { cronSchedule, type TriggerFormValues } from './trigger-form';

const TRIGGER_OPTIONS: Option<TriggerType>[] = [
  { value: 'event', label: 'Event', description: 'When something happens in this organization, e.g. a record is created' },
  { value: 'schedule', label: 'Schedule', description: 'At times given by a cron expression, in a time zone' },
  { value: 'http', label: 'HTTP hook', description: 'When a program POSTs to its hook URL with its secret' },
];

let timeZones: string[] | undefined;
const allTimeZones = () => (timeZones ??= typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC']);

export interface TriggerEditorProps {
  value: TriggerFormValues;
  onChange: (value: TriggerFormValues) => void;
  /** Catalog types an automation may listen to. */
  eventTypes: string[];
  models: DataModel[];
  errors: Record<string, string>;
}

/** The trigger: its type, then what that type needs, with the schedule's next slots shown as it is typed. */
export function TriggerEditor({ value, onChange, eventTypes, models, errors }: TriggerEditorProps) {
  const id = useId();
  const set = <K extends keyof TriggerFormValues>(key: K, next: TriggerFormValues[K]) => onChange({ ...value, [key]: next });
  const schedule = useMemo(() => (value.type === 'schedule' ? cronSchedule(value.cron, value.timezone, 3) : undefined), [value.type, value.cron, value.timezone]);
  const modelKeys = useMemo(() => models.map((model) => model.key), [models]);
  // The source follows the saved type until someone picks one.
  const [pickedSource, setPickedSource] = useState<string>();
  const source = pickedSource ?? sourceOf(value.eventType, modelKeys);
  const sources = [...models.map((model) => ({ value: model.key, label: `Records of ${model.name}` })), { value: OTHER_EVENTS, label: 'Other events (members, roles, boards…)' }];

  return (
    <fieldset className="card field">
      <legend>Trigger</legend>
      <RadioGroup label="Starts" name={`${id}-type`} value={value.type} options={TRIGGER_OPTIONS} onChange={(type) => set('type', type)} />
      {value.type === 'schedule' ? (
        <>
          <TextField
            label="Cron expression"
            hint={
              <>
                Five fields: minute hour day-of-month month day-of-week. <code>0 9 * * 1-5</code> is 9:00 on weekdays.
              </>
            }
            value={value.cron}
            onChange={(cron) => set('cron', cron)}
            error={errors['trigger.cron']}
            spellCheck={false}
            required
          />
          <TextField label="Time zone" hint="An IANA zone, e.g. Europe/Paris or UTC." value={value.timezone} onChange={(timezone) => set('timezone', timezone)} error={errors['trigger.timezone']} list={`${id}-zones`} required />
          <datalist id={`${id}-zones`}>
            {allTimeZones().map((zone) => (
              <option key={zone} value={zone} />
            ))}
          </datalist>
          <p className="field-hint" aria-live="polite">
            {schedule && 'next' in schedule ? `Next runs: ${schedule.next.map((slot) => formatDateTime(slot.toISOString())).join(' · ')} (your time)` : ''}
          </p>
        </>
      ) : null}
      {value.type === 'event' ? (
        <>
          <div className="automation-row">
            <SelectField
              label="When"
              value={source}
              options={sources}
              onChange={(next) => {
                setPickedSource(next);
                set('eventType', '');
              }}
            />
            <SelectField label="Event type" value={value.eventType} options={eventOptions(source, eventTypes, value.eventType)} onChange={(eventType) => set('eventType', eventType)} error={errors['trigger.eventType']} required />
          </div>
          <div className="choice">
            <input type="checkbox" id={`${id}-own`} checked={value.includeOwnRuns} onChange={(event) => set('includeOwnRuns', event.target.checked)} />
            <label htmlFor={`${id}-own`}>
              Also on events its own runs cause
              <span className="choice-description">Off, an automation that writes what it listens to cannot loop on itself.</span>
            </label>
          </div>
        </>
      ) : null}
      {value.type === 'http' ? (
        <p className="field-hint">
          After saving, programs start it with <code>POST /hooks/automation/&lt;id&gt;</code> and the secret shown once; the JSON body is
          the run’s <code>input</code>.
        </p>
      ) : null}
    </fieldset>
  );
}
