import { RUN_AUTOMATIONS, type AutomationRunner, type AutomationRunnerOptions } from '@mrp/automations';
import { invokeAsSystem } from './invoke-as-system';
import type { Runtime } from './runtime';

/**
 * A runner of automation runs for this process, as `system:automation-runner`: what it takes
 * from the job queue is admitted by one system procedure, then the admitted runs executed by
 * another, a batch of one organization's runs in one transaction, their events carrying each run as cause.
 */
export function createAutomationRunner(runtime: Runtime, options?: AutomationRunnerOptions): AutomationRunner {
  return runtime.automations.createRunner(
    {
      newContext: () => runtime.orm.em.fork(),
      logger: runtime.logger,
      async admit(runs) {
        const { admitted } = await invokeAsSystem<{ admitted: string[] }>(runtime, {
          task: 'automation-runner',
          procedure: 'automations.runs.admit',
          permissions: [RUN_AUTOMATIONS],
          input: { runIds: runs.map((run) => run.id) },
        });
        const go = new Set(admitted);
        return runs.filter((run) => go.has(run.id));
      },
      async execute(runs) {
        // Each run's events name the run as their cause (the procedure stamps them).
        await invokeAsSystem(runtime, {
          task: 'automation-runner',
          procedure: 'automations.runs.execute',
          permissions: [RUN_AUTOMATIONS],
          input: { runIds: runs.map((run) => run.id) },
        });
      },
    },
    options,
  );
}

/**
 * Runs automation runs in this process as they are queued: the runner is woken by the job queue's
 * announcements (so the queue is started here, if it was not) and polls for retries coming due.
 */
export async function startAutomationRunner(runtime: Runtime, options?: AutomationRunnerOptions): Promise<AutomationRunner> {
  const runner = createAutomationRunner(runtime, options);
  runner.start();
  await runtime.jobs.start();
  return runner;
}
