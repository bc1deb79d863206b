import type { Automation } from '../api/automation-types';
import { checkText } from '../forms/text-rules';
import { actionFormOf, checkActions, emptyAction, type ActionFormValues, type FieldsByModel } from './action-form';
import type { ActionDefinition } from '../api/automation-types';
import { checkTrigger, emptyTrigger, triggerFormOf, type TriggerFormValues, type TriggerInput } from './trigger-form';

export interface AutomationFormValues {
  name: string;
  enabled: boolean;
  maxRunsPerMinute: string;
  trigger: TriggerFormValues;
  actions: ActionFormValues[];
}

/** The definition `automations.create` takes (`automations.update` takes it with the id). */
export interface AutomationInput {
  name: string;
  enabled: boolean;
  maxRunsPerMinute: number;
  trigger: TriggerInput;
  actions: ActionDefinition[];
}

export const MAX_RUNS_PER_MINUTE = 6000;

export function emptyAutomationForm(): AutomationFormValues {
  return { name: '', enabled: true, maxRunsPerMinute: '60', trigger: emptyTrigger(), actions: [emptyAction()] };
}

export function automationFormOf(automation: Automation, fieldsByModel: FieldsByModel = new Map()): AutomationFormValues {
  return {
    name: automation.name,
    enabled: automation.enabled,
    maxRunsPerMinute: String(automation.maxRunsPerMinute),
    trigger: triggerFormOf(automation.trigger),
    actions: automation.actions.map((action) => actionFormOf(action, fieldsByModel.get(action.model ?? '') ?? [])),
  };
}

export function checkAutomationForm(
  values: AutomationFormValues,
  knownTypes: ReadonlySet<string>,
  now: Date = new Date(),
  fieldsByModel: FieldsByModel = new Map(),
): { errors: Record<string, string>; input?: AutomationInput } {
  const errors: Record<string, string> = {};
  const name = checkText(values.name, { required: true, maxLength: 200 });
  if (name) errors.name = name;
  const rate = values.maxRunsPerMinute.trim();
  if (!/^\d+$/.test(rate) || Number(rate) < 1 || Number(rate) > MAX_RUNS_PER_MINUTE) errors.maxRunsPerMinute = `A whole number from 1 to ${MAX_RUNS_PER_MINUTE}`;
  const trigger = checkTrigger(values.trigger, knownTypes, now);
  const actions = checkActions(values.actions, fieldsByModel);
  Object.assign(errors, trigger.errors, actions.errors);
  if (Object.keys(errors).length > 0 || !trigger.input || !actions.actions) return { errors };
  return {
    errors,
    input: { name: values.name.trim(), enabled: values.enabled, maxRunsPerMinute: Number(rate), trigger: trigger.input, actions: actions.actions },
  };
}
