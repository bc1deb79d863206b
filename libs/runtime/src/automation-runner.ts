import { RUN_AUTOMATIONS, RUNS_DUE_CHANNEL, type AutomationRunner, type AutomationRunnerOptions } from '@mrp/automations';
import { listenForWakeSignals, type WakeSignals } from '@mrp/events';
import { invokeAsSystem } from './invoke-as-system';
import type { Runtime } from './runtime';

/**
 * A runner of automation runs for this process, as `system:automation-runner`: each claimed batch
 * is admitted by one system procedure, then each admitted run executed by another, whose events
 * carry the run as cause.
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
      async execute(run) {
        await invokeAsSystem(runtime, {
          task: 'automation-runner',
          procedure: 'automations.runs.execute',
          permissions: [RUN_AUTOMATIONS],
          input: { runId: run.id },
          causedBy: { automationRunId: run.id, automationChain: [...run.chain, run.automationId] },
        });
      },
    },
    options,
  );
}

/** Wakes the runner when runs are queued (a NOTIFY at or just after the queueing commit) and every few seconds. */
export function listenForAutomationRuns(runtime: Runtime, runner: AutomationRunner, pollIntervalMs?: number): Promise<WakeSignals> {
  return listenForWakeSignals({
    databaseUrl: runtime.config.databaseUrl as string,
    channel: RUNS_DUE_CHANNEL,
    purpose: 'automation run',
    logger: runtime.logger,
    onDue: () => runner.wake(),
    pollIntervalMs,
  });
}
