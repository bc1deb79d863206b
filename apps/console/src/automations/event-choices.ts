import type { Option } from '../forms/fields';
import { RECORD_ACTIONS } from '../webhooks/subscription-patterns';

/** The source picker's value for events that are not one model's records. */
export const OTHER_EVENTS = '';

const MODEL_EVENT = /^data-models\.([a-z][a-z0-9_]{0,62})\.(\*|record-(?:created|updated|deleted))$/;

/** The model whose records `eventType` is about, when it is one of `modelKeys`; else OTHER_EVENTS. */
export function sourceOf(eventType: string, modelKeys: readonly string[]): string {
  const model = MODEL_EVENT.exec(eventType)?.[1];
  return model !== undefined && modelKeys.includes(model) ? model : OTHER_EVENTS;
}

const RECORD_ACTION_LABELS: Record<(typeof RECORD_ACTIONS)[number], string> = {
  created: 'A record is created',
  updated: 'A record is changed',
  deleted: 'A record is deleted',
};

/**
 * The events a trigger can name for a source: one model's record events (and all of them), or
 * the catalog's types with their prefixes and `*`. The current value is always offered, so an
 * automation saved with a type no list holds today opens unchanged.
 */
export function eventOptions(source: string, catalogTypes: readonly string[], current: string): Option[] {
  const options: Option[] =
    source === OTHER_EVENTS
      ? [
          ...catalogTypes.map((type) => ({ value: type, label: type })),
          ...[...new Set(catalogTypes.map((type) => `${type.split('.')[0]}.*`))].map((prefix) => ({ value: prefix, label: `${prefix} (every ${prefix.slice(0, -2)} event)` })),
          { value: '*', label: '* (every event)' },
        ]
      : [
          ...RECORD_ACTIONS.map((action) => ({ value: `data-models.${source}.record-${action}`, label: RECORD_ACTION_LABELS[action] })),
          { value: `data-models.${source}.*`, label: 'Any change to a record' },
        ];
  const withCurrent = current === '' || options.some((option) => option.value === current) ? options : [{ value: current, label: current }, ...options];
  return [{ value: '', label: 'Choose an event' }, ...withCurrent];
}
