import { RUN_AUTOMATIONS, RUNS_DUE_CHANNEL, type AutomationRunner, type AutomationRunnerOptions } from '@mrp/automations';
import { listenForWakeSignals, type WakeSignals } from '@mrp/events';
import { invokeAsSystem } from './invoke-as-system';
import type { Runtime } from './runtime';

/**
 * A runner of automation runs for this process. Each claimed run is started, then executed, by
 * two system procedures run as `system:automation-runner`; their events carry the run as cause.
 */
export function createAutomationRunner(runtime: Runtime, options?: AutomationRunnerOptions): AutomationRunner {
  return runtime.automations.createRunner(
    {
      newContext: () => runtime.orm.em.fork(),
      logger: runtime.logger,
      async execute(run) {
        const call = (procedure: string) =>
          invokeAsSystem<{ proceed?: boolean }>(runtime, {
            task: 'automation-runner',
            procedure,
            permissions: [RUN_AUTOMATIONS],
            input: { runId: run.id },
            causedBy: { automationRunId: run.id, automationChain: [...run.chain, run.automationId] },
          });
        const { proceed } = await call('automations.runs.start');
        if (proceed) await call('automations.runs.execute');
      },
    },
    options,
  );
}

/** Wakes the runner when runs are queued (the queueing transaction's NOTIFY) and every few seconds. */
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
