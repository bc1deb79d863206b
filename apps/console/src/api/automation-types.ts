import type { ActionInputValue, AutomationView, RunView } from '@mrp/automations/contracts';

/** The answers of the automation procedures (automations lib) the console reads: their own output types. */

export type { ActionResult, ActionType, AutomationWithSecret, RunStatus, TriggerType } from '@mrp/automations/contracts';

/** `automations.list` items, `automations.get` */
export type Automation = AutomationView;

/** An automation's trigger as the procedures answer it. */
export type TriggerView = AutomationView['trigger'];

/** An action as `automations.create` takes it and the views return it. */
export type ActionDefinition = ActionInputValue;

/** `automations.runs.list` items */
export type AutomationRun = RunView;
