/**
 * The static types of the automations lib's procedure inputs and answers and of the definitions
 * they take, for code that calls the procedures by name (the console over /rpc): the types of the
 * TypeBox schemas the procedures declare, so each shape is written once. Types only: nothing here
 * runs, its imports are `import type` (lint), and the schema files it reads import only TypeBox.
 */
import type { Static } from '@sinclair/typebox';
import type * as AutomationInputs from './definitions/automation-inputs';
import type * as AutomationSchemas from './definitions/automation-schemas';

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

/**
 * What each automations procedure a door serves takes and answers, by name: the static types of
 * the input and output schemas it declares (`procedures.spec.ts` fails when they drift). A caller
 * by name (the console's `call`) gets both from the name alone.
 */
export interface AutomationsProcedures {
  'automations.list': { input: Static<typeof AutomationInputs.AutomationsListInput>; output: Static<typeof AutomationSchemas.AutomationPageSchema> };
  'automations.get': { input: Static<typeof AutomationInputs.AutomationByIdInput>; output: Static<typeof AutomationSchemas.AutomationViewSchema> };
  'automations.create': { input: Static<typeof AutomationInputs.AutomationsCreateInput>; output: Static<typeof AutomationSchemas.AutomationWithSecretSchema> };
  'automations.update': { input: Static<typeof AutomationInputs.AutomationsUpdateInput>; output: Static<typeof AutomationSchemas.AutomationWithSecretSchema> };
  'automations.rotateSecret': { input: Static<typeof AutomationInputs.AutomationByIdInput>; output: Static<typeof AutomationSchemas.AutomationWithSecretSchema> };
  'automations.delete': { input: Static<typeof AutomationInputs.AutomationByIdInput>; output: Static<typeof AutomationSchemas.DeletedAutomationSchema> };
  'automations.run': { input: Static<typeof AutomationInputs.AutomationsRunInput>; output: Static<typeof AutomationSchemas.QueuedRunSchema> };
  'automations.runs.list': { input: Static<typeof AutomationInputs.RunsListInput>; output: Static<typeof AutomationSchemas.RunPageSchema> };
  'automations.runs.get': { input: Static<typeof AutomationInputs.RunsGetInput>; output: Static<typeof AutomationSchemas.RunViewSchema> };
}
