import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnyProcedure, Logger } from '@mrp/platform';
import type { RowAccessRoles } from '@mrp/authz';
import { createAutomationDefinitionProcedures } from './definitions/automation-procedures';
import { enqueueHookRun } from './hooks/hook-trigger';
import { disableOrphanedAutomations } from './definitions/disable-orphaned';
import { createAutomationOutbox, type AutomationOutbox } from './runs/automation-outbox';
import { AutomationRunner, type AutomationRunnerOptions } from './runs/automation-runner';
import { createRunExecutionProcedures, type RunExecutionDeps } from './runs/run-execution';
import { runLogProcedures } from './runs/run-log-procedures';
import type { ClaimedRun } from './runs/run-queue';
import { enqueueDueSchedules } from './runs/schedule-procedures';

export interface AutomationsDeps extends RunExecutionDeps {
  /** Wakes the runners once a transaction that queued event runs committed (coalesced by the caller). */
  wakeRunners(): void;
  /** Which roles grant row access: acting as an owner needs holding those of its roles. */
  rowAccessRoles: RowAccessRoles;
}

export interface Automations {
  procedures: AnyProcedure[];
  /** The event trigger's outbox, for the event dispatcher. */
  outbox: AutomationOutbox;
  createRunner(
    deps: { newContext(): EntityManager; admit(runs: ClaimedRun[]): Promise<ClaimedRun[]>; execute(run: ClaimedRun): Promise<void>; logger: Logger },
    options?: AutomationRunnerOptions,
  ): AutomationRunner;
}

export function createAutomations(deps: AutomationsDeps): Automations {
  return {
    procedures: [...createAutomationDefinitionProcedures(deps), ...runLogProcedures, ...createRunExecutionProcedures(deps), enqueueDueSchedules, enqueueHookRun, disableOrphanedAutomations],
    outbox: createAutomationOutbox(() => deps.wakeRunners()),
    createRunner: (runnerDeps, options) => new AutomationRunner(runnerDeps, options),
  };
}
