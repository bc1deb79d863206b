import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnyProcedure, JobQueue, Logger } from '@mrp/platform';
import type { RowAccessRoles } from '@mrp/authz';
import { createAutomationDefinitionProcedures } from './definitions/automation-procedures';
import { enqueueHookRun } from './hooks/hook-trigger';
import { disableOrphanedAutomations } from './definitions/disable-orphaned';
import { createAutomationOutbox, type AutomationOutbox } from './runs/automation-outbox';
import { AutomationRunner, type AutomationRunnerOptions, type ClaimedRun } from './runs/automation-runner';
import { createRunExecutionProcedures, type RunExecutionDeps } from './runs/run-execution';
import { runLogProcedures } from './runs/run-log-procedures';
import { enqueueDueSchedules } from './runs/schedule-procedures';

export interface AutomationsDeps extends RunExecutionDeps {
  /** The job queue runs are queued on, one job per run, in the transaction that queues the run. */
  jobs: JobQueue;
  /** Which roles grant row access: acting as an owner needs holding those of its roles. */
  rowAccessRoles: RowAccessRoles;
}

export interface Automations {
  procedures: AnyProcedure[];
  /** The event trigger's outbox, for the event dispatcher. */
  outbox: AutomationOutbox;
  createRunner(
    deps: { newContext(): EntityManager; admit(runs: ClaimedRun[]): Promise<ClaimedRun[]>; execute(runs: ClaimedRun[]): Promise<void>; logger: Logger },
    options?: AutomationRunnerOptions,
  ): AutomationRunner;
}

export function createAutomations(deps: AutomationsDeps): Automations {
  return {
    procedures: [
      ...createAutomationDefinitionProcedures(deps),
      ...runLogProcedures,
      ...createRunExecutionProcedures(deps),
      enqueueDueSchedules(deps.jobs),
      enqueueHookRun(deps.jobs),
      disableOrphanedAutomations,
    ],
    outbox: createAutomationOutbox(deps.jobs),
    createRunner: (runnerDeps, options) => new AutomationRunner({ ...runnerDeps, jobs: deps.jobs }, options),
  };
}
