import type { DataField } from '../data-models/types';
import type { TriggerFormValues } from './trigger-form';

const RECORD_EVENT = /^data-models\.([a-z][a-z0-9_]{0,62})\.(?:\*|record-(?:created|updated))$/;

/** The model whose live records the trigger's events carry (created or changed), if it names one. */
export function watchedModel(trigger: TriggerFormValues): string | undefined {
  return trigger.type === 'event' ? RECORD_EVENT.exec(trigger.eventType)?.[1] : undefined;
}

/**
 * Placeholders a template may use with this trigger, offered as suggestions: the watched model's
 * record values for its record events, what a schedule passes, and `{{now}}`. An HTTP hook's or a
 * manual run's input is whatever its caller sends, so only its root is offered.
 */
export function templateSuggestions(trigger: TriggerFormValues, watchedFields: readonly DataField[] | undefined): string[] {
  const suggestions: string[] = [];
  if (trigger.type === 'event') {
    if (watchedFields) {
      suggestions.push('{{event.payload.recordId}}', '{{event.payload.record.title}}');
      for (const field of watchedFields) if (field.key !== 'title') suggestions.push(`{{event.payload.record.data.${field.key}}}`);
    }
    suggestions.push('{{event.type}}');
  } else if (trigger.type === 'schedule') {
    suggestions.push('{{input.scheduledFor}}');
  }
  suggestions.push('{{now}}');
  return suggestions;
}
