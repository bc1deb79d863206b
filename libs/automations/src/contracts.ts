/**
 * The static types of the automations lib's procedure answers and of the definitions they take,
 * for code that calls the procedures by name (the console over /rpc): the types of the TypeBox
 * schemas the procedures declare, so each shape is written once. Types only: nothing here runs,
 * its imports are `import type` (lint), and the schema file it reads imports only TypeBox.
 */
export type {
  ActionInputValue,
  ActionResult,
  ActionType,
  AutomationPage,
  AutomationView,
  AutomationWithSecret,
  RunPage,
  RunStatus,
  RunTrigger,
  RunView,
  TriggerInputValue,
  TriggerType,
} from './definitions/automation-schemas';
