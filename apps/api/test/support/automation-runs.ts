import { startAutomationRunner } from '@mrp/runtime';
import type { AutomationRunner } from '@mrp/automations';
import { queryDatabase, sleep } from './public-api-fixtures';
import type { TestApi } from './test-api';

export interface RunRecord {
  id: string;
  automation_id: string;
  status: string;
  error: string | null;
  trigger: string;
  chain: string[];
  action_results: Array<{ type: string; status: string; recordId?: string; notified?: number; error?: { code: string; message: string } }>;
}

export interface TestRunner {
  runner: AutomationRunner;
  close(): Promise<void>;
}

/** The runner the cron-runner process runs, in this test's process, woken by the job queue like the real one (and polling). */
export async function startTestRunner(api: TestApi, pollIntervalMs = 100): Promise<TestRunner> {
  const runner = await startAutomationRunner(api.runtime, { pollIntervalMs });
  return {
    runner,
    close: () => runner.close(),
  };
}

const FINISHED = ['succeeded', 'failed', 'skipped'];

/** Waits until `count` runs of the automation have finished (polling the run log), then returns them oldest first. */
export async function finishedRuns(api: TestApi, automationId: string, count: number, timeoutMs = 20_000): Promise<RunRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await queryDatabase<RunRecord & Record<string, unknown>>(
      api,
      'SELECT id, automation_id, status, error, trigger, chain, action_results FROM automation_runs WHERE automation_id = $1 ORDER BY id',
      [automationId],
    );
    const finished = runs.filter((run) => FINISHED.includes(run.status));
    if (finished.length >= count && finished.length === runs.length) return runs;
    if (Date.now() > deadline) throw new Error(`Waited for ${count} finished runs of ${automationId}; have ${JSON.stringify(runs.map((run) => run.status))}`);
    await sleep(50);
  }
}
