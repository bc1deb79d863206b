import type { DataField } from '../data-models/types';
import type { TriggerFormValues } from './trigger-form';

const RECORD_EVENT = /^data-models\.([a-z][a-z0-9_]{0,62})\.(?:\*|record-(?:created|updated))$/;

/** The model whose live records the trigger's events carry (created or changed), if it names one. */
export function watchedModel(trigger: TriggerFormValues): string | undefined {
  return trigger.type === 'event' ? RECORD_EVENT.exec(trigger.eventType)?.[1] : undefined;
}

/** A placeholder a template may use, as the editor lists it. */
export interface TemplateVariable {
  template: string;
  /** What it is filled with when the automation runs. */
  description: string;
  /** The part of `template` to select once inserted, for the person to name (an input's property). */
  fill?: string;
}

/**
 * Placeholders a template may use with this trigger (libs/automations templates.ts: `event` with
 * event triggers only, `input` and `now` always): the watched model's record values for its record
 * events, the event's own type and time, what a schedule passes, an HTTP hook's body properties
 * (whatever its caller sends, so the name is left to fill in), and `{{now}}`.
 */
export function templateVariables(trigger: TriggerFormValues, watchedFields: readonly DataField[] | undefined): TemplateVariable[] {
  const variables: TemplateVariable[] = [];
  if (trigger.type === 'event') {
    if (watchedFields) {
      variables.push({ template: '{{event.payload.recordId}}', description: 'The record’s id' }, { template: '{{event.payload.record.title}}', description: 'The record’s title' });
      for (const field of watchedFields) {
        if (field.key !== 'title') variables.push({ template: `{{event.payload.record.data.${field.key}}}`, description: `The record’s ${field.name}` });
      }
    }
    variables.push({ template: '{{event.type}}', description: 'The event’s type' }, { template: '{{event.occurredAt}}', description: 'When the event happened (UTC)' });
  } else if (trigger.type === 'schedule') {
    variables.push({ template: '{{input.scheduledFor}}', description: 'The scheduled time of the run (UTC)' });
  } else if (trigger.type === 'http') {
    variables.push({ template: '{{input.name}}', description: 'A property of the JSON body the hook is called with', fill: 'name' });
  }
  variables.push({ template: '{{now}}', description: 'When the run starts (UTC)' });
  return variables;
}

/** The placeholders alone, suggested as a template is typed. */
export function templateSuggestions(trigger: TriggerFormValues, watchedFields: readonly DataField[] | undefined): string[] {
  return templateVariables(trigger, watchedFields).map((variable) => variable.template);
}
