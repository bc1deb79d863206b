import { createRuntime, startAutomationRunner, type Runtime } from '@mrp/runtime';
import type { AutomationRunner } from '@mrp/automations';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, queryDatabase, sleep, type OrganizationWithKey } from '../support/public-api-fixtures';
import { capturedLogger } from '@mrp/platform/testing';

/**
 * A service-level test of the bounds that keep one organization's automations from stalling
 * another's (docs/operations.md, "Limits that protect other organizations"): an automation that
 * feeds its own trigger ten records a run, opted into its own runs at the highest rate, runs for a
 * minute against the api and the runner the cron-runner process runs (its own runtime and pool),
 * while another organization calls its HTTP hook every second.
 */
const LOOP_SECONDS = 60;
const HOOK_P99_MS = 2000;
const GIVE_UP_MS = 20_000;
const MAX_RUNS_PER_CHAIN = 1000;
const MAX_QUEUED_RUNS_PER_ORGANIZATION = 10_000;

interface Sample {
  ms: number;
  runId: string;
}

interface HttpAutomation {
  id: string;
  secret: string;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

describe('an organization whose automations loop', () => {
  let api: TestApi;
  let cronRunner: Runtime;
  let runner: AutomationRunner;
  let loop: OrganizationWithKey;
  let neighbour: OrganizationWithKey;
  const apiLogs = capturedLogger('warn');
  const runnerLogs = capturedLogger('warn');

  beforeAll(async () => {
    api = await startTestApi({}, { logger: apiLogs.logger });
    cronRunner = await createRuntime(api.runtime.config, { name: 'cron-runner', poolSize: 10, logger: runnerLogs.logger });
    runner = await startAutomationRunner(cronRunner);
    loop = await createOrganizationWithKey(api, { modelKey: 'fz' });
    neighbour = await createOrganizationWithKey(api);
  });
  afterAll(async () => {
    await runner.close();
    await cronRunner.close();
    await api.close();
  });

  const count = async (text: string, params: unknown[]) => Number((await queryDatabase<{ count: string }>(api, text, params))[0].count);
  const loopRecords = () =>
    count(`SELECT count(*) FROM records r JOIN data_models m ON m.id = r.model_id WHERE m.organization_id = $1 AND m.key = 'fz'`, [loop.organizationId]);
  const loopQueued = () => count(`SELECT count(*) FROM automation_runs WHERE organization_id = $1 AND status = 'queued'`, [loop.organizationId]);

  /** From the hook call to its run finished, as its caller would wait for it. */
  async function hookToRunFinished(hook: HttpAutomation, index: number): Promise<Sample> {
    const startedAt = Date.now();
    const answer = await api.request(`/hooks/automation/${hook.id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ref: `H-${index}` }),
    });
    expect(answer.status).toBe(202);
    const { runId } = (await answer.json()) as { runId: string };
    // A run still queued this long counts as this long: far over the bound, and the test still ends.
    while (Date.now() - startedAt < GIVE_UP_MS) {
      const [run] = await queryDatabase<{ status: string; error: string | null }>(api, 'SELECT status, error FROM automation_runs WHERE id = $1', [runId]);
      if (run.status !== 'queued') {
        expect(run).toEqual({ status: 'succeeded', error: null });
        return { ms: Date.now() - startedAt, runId };
      }
      await sleep(20);
    }
    return { ms: GIVE_UP_MS, runId };
  }

  /** What a reader of a failure needs: the slow runs' timelines, and what the processes logged. */
  async function whySlow(samples: Sample[]): Promise<string> {
    const slow = samples.filter((sample) => sample.ms >= HOOK_P99_MS);
    const timelines = await queryDatabase(
      api,
      `SELECT id, status, attempts, queued_at, admitted_at, started_at, finished_at FROM automation_runs WHERE id = ANY($1::uuid[])`,
      [slow.map((sample) => sample.runId)],
    );
    const logged = [...apiLogs.lines, ...runnerLogs.lines].map((line) => ({ name: line.name, msg: line.msg, err: (line.err as { message?: string })?.message }));
    return JSON.stringify({ slow, timelines, logged: logged.slice(0, 20) }, null, 1);
  }

  it(`keeps another organization's hook runs under ${HOOK_P99_MS} ms (p99) for a minute, and its own records and queue bounded`, async () => {
    const looping = await loop.rpc<{ id: string }>('automations.create', {
      name: 'Feeds itself',
      trigger: { type: 'event', eventType: 'data-models.fz.record-created', includeOwnRuns: true },
      actions: Array.from({ length: 10 }, (_, index) => ({ type: 'create-record', model: 'fz', data: { title: `Echo ${index} of {{event.payload.record.title}}` } })),
      maxRunsPerMinute: 6000,
    });
    const hook = await neighbour.rpc<HttpAutomation>('automations.create', {
      name: 'Inbound order',
      trigger: { type: 'http' },
      actions: [{ type: 'create-record', model: neighbour.modelKey, data: { title: 'Order {{input.ref}}' } }],
    });
    await loop.rpc('records.create', { model: 'fz', data: { title: 'Seed' } });

    const delays: Array<Promise<Sample>> = [];
    let mostQueued = 0;
    const startedAt = Date.now();
    for (let second = 0; second < LOOP_SECONDS; second++) {
      delays.push(hookToRunFinished(hook, second));
      mostQueued = Math.max(mostQueued, await loopQueued());
      // Every second on the clock, however long the sample took.
      await sleep(Math.max(0, startedAt + (second + 1) * 1000 - Date.now()));
    }
    const samples = await Promise.all(delays);
    const p99 = percentile(samples.map((sample) => sample.ms), 99);
    if (p99 >= HOOK_P99_MS) throw new Error(`The neighbour's hook runs took ${p99} ms (p99), over ${HOOK_P99_MS} ms: ${await whySlow(samples)}`);
    expect(mostQueued).toBeLessThanOrEqual(MAX_QUEUED_RUNS_PER_ORGANIZATION);
    // One change: its chain stops at 1,000 runs of 10 records each, and the run log says so.
    const loopRuns = await queryDatabase<{ status: string; error: string | null; skipped_runs: number | null }>(
      api,
      'SELECT status, error, skipped_runs FROM automation_runs WHERE automation_id = $1',
      [looping.id],
    );
    expect(loopRuns.filter((run) => run.skipped_runs === null).length).toBeLessThanOrEqual(MAX_RUNS_PER_CHAIN);
    expect(loopRuns.some((run) => run.status === 'skipped' && run.error?.startsWith('Stopped: the change at the root of this chain'))).toBe(true);
    expect(await loopRecords()).toBeLessThanOrEqual(1 + 10 * MAX_RUNS_PER_CHAIN);
  }, (LOOP_SECONDS + 60) * 1000);
});
