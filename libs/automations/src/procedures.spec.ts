import type { SignatureDrift, SignaturesOf } from '@mrp/platform';
import type { AutomationsProcedures } from './contracts';
import type { createAutomationDefinitionProcedures } from './definitions/automation-procedures';
import type { disableOrphanedAutomations } from './definitions/disable-orphaned';
import type { enqueueHookRun } from './hooks/hook-trigger';
import type { createRunExecutionProcedures } from './runs/run-execution';
import type { runLogProcedures } from './runs/run-log-procedures';
import type { enqueueDueSchedules } from './runs/schedule-procedures';

/**
 * Type-level: the automations lib's contracts map (what callers by name are typed with) says what
 * the procedures declare. This file fails the typecheck, not a test run, when they drift.
 */
type AutomationsProcedure =
  | ReturnType<typeof createAutomationDefinitionProcedures>[number]
  | (typeof runLogProcedures)[number]
  | ReturnType<typeof createRunExecutionProcedures>[number]
  | ReturnType<typeof enqueueHookRun>
  | ReturnType<typeof enqueueDueSchedules>
  | typeof disableOrphanedAutomations;
type Served = SignaturesOf<AutomationsProcedure>;
type Drift = SignatureDrift<Served, AutomationsProcedures>;

const noDrift: [Drift] extends [never] ? true : Drift = true;

// A contract that restates an input by hand and gets it wrong is named.
type WrongInput = Omit<AutomationsProcedures, 'automations.get'> & {
  'automations.get': { input: { id: number }; output: AutomationsProcedures['automations.get']['output'] };
};
const wrongInputNamed: SignatureDrift<Served, WrongInput> = 'automations.get';
// An answer the contract does not cover is named.
type WrongOutput = Omit<AutomationsProcedures, 'automations.run'> & {
  'automations.run': { input: AutomationsProcedures['automations.run']['input']; output: { runId: number } };
};
const wrongOutputNamed: SignatureDrift<Served, WrongOutput> = 'automations.run';
// A procedure the contract forgets is named.
const missingNamed: SignatureDrift<Served, Omit<AutomationsProcedures, 'automations.runs.list'>> = 'automations.runs.list';

describe("the automations lib's contracts map", () => {
  it('matches the procedures (checked by the typecheck)', () => {
    expect([noDrift, wrongInputNamed, wrongOutputNamed, missingNamed]).toEqual([true, 'automations.get', 'automations.run', 'automations.runs.list']);
  });
});
