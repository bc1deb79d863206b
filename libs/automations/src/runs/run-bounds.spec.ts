import { newId, type Job, type JobQueue } from '@mrp/platform';
import { createRunTestBed, type RunTestBed } from '@mrp/automations/testing';
import { MAX_QUEUED_RUNS_PER_ORGANIZATION, MAX_RUNS_PER_CHAIN } from './run-bounds';
import { silentLogger } from '@mrp/platform/testing';
import { AutomationRunner, type AutomationRunnerOptions, type ClaimedRun } from './automation-runner';
import { AUTOMATION_RUNS_QUEUE, enqueueRuns, type QueuedRun, type RunJob } from './run-queue';

interface RunRow {
  id: string;
  status: string;
  error: string | null;
  skipped_runs: number | null;
}

describe('the bounds on queued automation runs', () => {
  let bed: RunTestBed;

  beforeAll(async () => {
    bed = await createRunTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });

  const eventRun = (organizationId: string, automationId: string, cause?: { runId: string; chain: string[] }): QueuedRun => ({
    automationId,
    organizationId,
    trigger: 'event',
    event: { id: newId(), type: 'data-models.record-created', payload: {} },
    chain: cause?.chain ?? [],
    causedByRunId: cause?.runId,
  });
  const enqueue = (runs: QueuedRun[]) => bed.db.orm.em.fork().transactional((em) => enqueueRuns(bed.jobs, em, runs));
  const runsOf = (automationId: string) =>
    bed.sql<RunRow>('SELECT id, status, error, skipped_runs FROM automation_runs WHERE automation_id = ? ORDER BY id', [automationId]);
  const queuedOf = async (automationId: string) => (await runsOf(automationId)).filter((run) => run.status === 'queued');
  const skippedOf = async (automationId: string) => (await runsOf(automationId)).filter((run) => run.status === 'skipped');

  it('queues an automation’s runs up to its rate, and records those over it in one skipped row a minute that counts them', async () => {
    const organization = await bed.organization();
    const automation = await bed.eventAutomation(organization, { maxRunsPerMinute: 5 });
    const first = await enqueue(Array.from({ length: 3 }, () => eventRun(organization, automation)));
    const second = await enqueue(Array.from({ length: 4 }, () => eventRun(organization, automation)));
    await enqueue([eventRun(organization, automation)]);

    expect(await queuedOf(automation)).toHaveLength(5);
    const skipped = await skippedOf(automation);
    expect(skipped).toEqual([
      {
        id: second[2],
        status: 'skipped',
        skipped_runs: 3,
        error: 'Rate limit: the automation runs at most 5 times a minute; the runs over it in this minute were not queued',
      },
    ]);
    // Each run is answered: queued, or the skipped row that counts it.
    expect(first.every((id) => id !== null)).toBe(true);
    expect(second[3]).toBe(skipped[0].id);
  });

  it(`stops a chain at ${MAX_RUNS_PER_CHAIN} runs caused by one change, however deep, and says so in the run log`, async () => {
    const organization = await bed.organization();
    const automation = await bed.eventAutomation(organization, { maxRunsPerMinute: 6000 });
    // The root run: the one the change itself caused.
    const [root] = await enqueue([eventRun(organization, automation)]);
    const children = await enqueue(Array.from({ length: 10 }, () => eventRun(organization, automation, { runId: root as string, chain: [automation] })));
    // Grandchildren, in batches as runs execute, count against the same root.
    for (const child of children.slice(0, 9)) {
      await enqueue(Array.from({ length: 110 }, () => eventRun(organization, automation, { runId: child as string, chain: [automation, automation] })));
    }
    expect(await queuedOf(automation)).toHaveLength(MAX_RUNS_PER_CHAIN);
    const [stopped] = await skippedOf(automation);
    expect(stopped).toMatchObject({
      skipped_runs: 1 + 10 + 9 * 110 - MAX_RUNS_PER_CHAIN,
      error: `Stopped: the change at the root of this chain of automations has caused 1,000 runs (at most 1,000 per change); the runs over it were not queued`,
    });
    // Another change starts a chain of its own.
    const [otherRoot] = await enqueue([eventRun(organization, automation)]);
    await enqueue([eventRun(organization, automation, { runId: otherRoot as string, chain: [automation] })]);
    expect(await queuedOf(automation)).toHaveLength(MAX_RUNS_PER_CHAIN + 2);
  });

  it(`skips an organization's event runs while it has ${MAX_QUEUED_RUNS_PER_ORGANIZATION} runs queued, and no other organization's`, async () => {
    const organization = await bed.organization();
    const backlog = await bed.eventAutomation(organization, { maxRunsPerMinute: 6000 });
    await bed.sql(
      `INSERT INTO automation_runs (id, automation_id, organization_id, trigger, queued_at)
       SELECT gen_random_uuid(), ?, ?, 'event', now() - interval '1 hour' FROM generate_series(1, ?)`,
      [backlog, organization, MAX_QUEUED_RUNS_PER_ORGANIZATION],
    );
    const automation = await bed.eventAutomation(organization);
    await enqueue([eventRun(organization, automation), eventRun(organization, automation)]);
    expect(await queuedOf(automation)).toEqual([]);
    expect(await skippedOf(automation)).toMatchObject([
      { skipped_runs: 2, error: 'The organization has 10,000 runs queued (at most 10,000); the runs over it were not queued' },
    ]);

    const other = await bed.organization();
    const ofOther = await bed.eventAutomation(other);
    await enqueue([eventRun(other, ofOther)]);
    expect(await queuedOf(ofOther)).toHaveLength(1);
  });
});

describe('taking queued runs fairly', () => {
  let bed: RunTestBed;

  beforeAll(async () => {
    bed = await createRunTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });
  afterEach(async () => {
    // Each test starts from an empty queue.
    for (;;) {
      const left = await bed.jobs.fetch(AUTOMATION_RUNS_QUEUE, 100);
      if (left.length === 0) break;
      await bed.jobs.complete(AUTOMATION_RUNS_QUEUE, left.map((job) => job.id));
    }
    // And none waits for a retry.
    while ((await bed.jobs.drain(AUTOMATION_RUNS_QUEUE, async () => undefined, { ignoreDelay: true })) > 0);
  });

  const eventRun = (organizationId: string, automationId: string): QueuedRun => ({
    automationId,
    organizationId,
    trigger: 'event',
    event: { id: newId(), type: 'data-models.record-created', payload: {} },
  });
  /** Runs queued as the outbox queues them: with the COMMIT, announced by nobody. */
  const queueRuns = async (organizationId: string, automationId: string, runs: number) =>
    (await bed.db.orm.em.fork().transactional((em) =>
      enqueueRuns(bed.jobs, em, Array.from({ length: runs }, () => eventRun(organizationId, automationId)), 'after-commit'),
    )) as string[];
  const succeed = (runId: string) => bed.sql(`UPDATE automation_runs SET status = 'succeeded' WHERE id = ?`, [runId]);
  /** A runner whose slots hold one run each unless told otherwise (`batchSize`): `execute` is called per run. */
  const runner = (
    deps: Partial<{ jobs: JobQueue; execute(run: ClaimedRun): Promise<void>; executeTogether(runs: ClaimedRun[]): Promise<void> }>,
    options: AutomationRunnerOptions,
  ) => {
    const executeOne = deps.execute ?? (async (run: ClaimedRun) => void (await succeed(run.id)));
    return new AutomationRunner(
      {
        jobs: deps.jobs ?? bed.jobs,
        newContext: () => bed.em(),
        logger: silentLogger,
        admit: async (runs) => runs,
        execute:
          deps.executeTogether ??
          (async (runs) => {
            for (const run of runs) await executeOne(run);
          }),
      },
      { pollIntervalMs: 3_600_000, batchSize: 1, ...options },
    );
  };

  it("hands out each organization's first waiting run before anyone's second: another's backlog never makes a run wait behind it", async () => {
    const noisy = await bed.organization();
    const quiet = await bed.organization();
    const backlog = await queueRuns(noisy, await bed.eventAutomation(noisy, { maxRunsPerMinute: 6000 }), 500);
    const quietAutomation = await bed.eventAutomation(quiet);
    const [hook] = await queueRuns(quiet, quietAutomation, 1);

    const taken: Array<Job<RunJob>> = [];
    for (let fetch = 0; fetch < 4; fetch++) taken.push(...(await bed.jobs.fetch<RunJob>(AUTOMATION_RUNS_QUEUE, 1)));
    // The quiet organization's run goes second, after the backlog's first and before its second.
    expect(taken.map((job) => job.data.runId)).toEqual([backlog[0], hook, backlog[1], backlog[2]]);
    // A run's turn counts its organization's runs still unfinished, the ones taken included: the quiet
    // organization's second run goes before the backlog's fourth.
    const [again] = await queueRuns(quiet, quietAutomation, 1);
    const [next] = await bed.jobs.fetch<RunJob>(AUTOMATION_RUNS_QUEUE, 1);
    expect(next.data).toMatchObject({ runId: again, turn: 1 });
    await bed.jobs.complete(AUTOMATION_RUNS_QUEUE, [...taken, next].map((job) => job.id));
  });

  it("holds one organization to its share of the slots while another's run waits, and loses none of the runs it hands back", async () => {
    const noisy = await bed.organization();
    const quiet = await bed.organization();
    const noisyRuns = await queueRuns(noisy, await bed.eventAutomation(noisy, { maxRunsPerMinute: 6000 }), 20);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const executing = new Map<string, number>();
    let mostNoisyAtOnce = 0;
    const executed: string[] = [];
    const taking = runner(
      {
        async execute(run) {
          executing.set(run.organizationId, (executing.get(run.organizationId) ?? 0) + 1);
          mostNoisyAtOnce = Math.max(mostNoisyAtOnce, executing.get(noisy) ?? 0);
          // The noisy organization's runs are slow: they hold their slots until released.
          if (run.organizationId === noisy) await released;
          await succeed(run.id);
          executed.push(run.id);
          executing.set(run.organizationId, (executing.get(run.organizationId) ?? 1) - 1);
        },
      },
      { concurrency: 3, slotsPerOrganization: 2 },
    );
    taking.wake();
    await eventually(() => (executing.get(noisy) ?? 0) === 2);
    const [hook] = await queueRuns(quiet, await bed.eventAutomation(quiet), 1);
    // As the announcement of its commit would.
    taking.wake('announced');
    await eventually(() => executed.includes(hook));
    expect(executing.get(noisy)).toBe(2);
    release();
    await eventually(() => executed.length === noisyRuns.length + 1);
    await taking.close();
    expect(mostNoisyAtOnce).toBe(2);
    expect(new Set(executed)).toEqual(new Set([...noisyRuns, hook]));
  });

  it('keeps taking an organization held to its share of the slots as its runs finish, with no other wake-up', async () => {
    const organization = await bed.organization();
    const runs = await queueRuns(organization, await bed.eventAutomation(organization), 6);
    const executed: string[] = [];
    const taking = runner({ execute: async (run) => void executed.push((await succeed(run.id), run.id)) }, { concurrency: 2, slotsPerOrganization: 1 });
    taking.wake();
    await eventually(() => executed.length === 6);
    await taking.close();
    expect(new Set(executed)).toEqual(new Set(runs));
  });

  it("gives an organization's waiting runs to a slot together, and its other slots' share still holds", async () => {
    const noisy = await bed.organization();
    const quiet = await bed.organization();
    const noisyRuns = await queueRuns(noisy, await bed.eventAutomation(noisy, { maxRunsPerMinute: 6000 }), 12);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const batches: Array<{ organizationId: string; runs: string[] }> = [];
    let noisyExecutions = 0;
    let mostNoisyExecutions = 0;
    const executed: string[] = [];
    const taking = runner(
      {
        async executeTogether(runs) {
          const organizationId = runs[0].organizationId;
          batches.push({ organizationId, runs: runs.map((run) => run.id) });
          if (organizationId === noisy) {
            mostNoisyExecutions = Math.max(mostNoisyExecutions, ++noisyExecutions);
            await released;
          }
          for (const run of runs) await succeed(run.id);
          executed.push(...runs.map((run) => run.id));
          if (organizationId === noisy) noisyExecutions--;
        },
      },
      { concurrency: 2, slotsPerOrganization: 1, batchSize: 4 },
    );
    taking.wake();
    await eventually(() => noisyExecutions === 1);
    const [hook] = await queueRuns(quiet, await bed.eventAutomation(quiet), 1);
    taking.wake('announced');
    // The quiet organization's run takes the slot the noisy one may not hold.
    await eventually(() => executed.includes(hook));
    expect(noisyExecutions).toBe(1);
    release();
    await eventually(() => executed.length === noisyRuns.length + 1);
    await taking.close();
    expect(mostNoisyExecutions).toBe(1);
    expect(new Set(executed)).toEqual(new Set([...noisyRuns, hook]));
    // Each execution held one organization's runs, at most four; the backlog's grew to four as it kept coming in batches.
    for (const batch of batches) expect(batch.runs.length).toBeLessThanOrEqual(4);
    const noisySizes = batches.filter((batch) => batch.organizationId === noisy).map((batch) => batch.runs.length);
    expect(noisySizes.reduce((sum, size) => sum + size, 0)).toBe(noisyRuns.length);
    expect(Math.max(...noisySizes)).toBe(4);
  });

  it('takes a job a slot when the waiting runs are of many organizations, handing back none', async () => {
    const organizations = await Promise.all(Array.from({ length: 12 }, () => bed.organization()));
    const runs: string[] = [];
    for (const organization of organizations) runs.push(...(await queueRuns(organization, await bed.eventAutomation(organization), 1)));
    const executed: string[] = [];
    const taking = runner({ execute: async (run) => void executed.push((await succeed(run.id), run.id)) }, { concurrency: 2, batchSize: 8 });
    taking.wake();
    await eventually(() => executed.length === runs.length);
    await taking.close();
    expect(new Set(executed)).toEqual(new Set(runs));
    // A job handed back is completed and queued again: one job each means none was.
    const [{ jobs }] = await bed.sql<{ jobs: number }>(`SELECT count(*)::int AS jobs FROM pgboss.job WHERE name = ? AND data->>'runId' = ANY(?::text[])`, [
      AUTOMATION_RUNS_QUEUE,
      `{${runs.join(',')}}`,
    ]);
    expect(jobs).toBe(runs.length);
  });

  it('executes the runs of a batch one by one when executing them together failed: one run that cannot be executed holds back no other', async () => {
    const organization = await bed.organization();
    const runs = await queueRuns(organization, await bed.eventAutomation(organization), 6);
    const poisoned = runs[2];
    const calls: string[][] = [];
    const taking = runner(
      {
        async executeTogether(taken) {
          calls.push(taken.map((run) => run.id));
          if (taken.some((run) => run.id === poisoned)) throw new Error('a statement failed');
          for (const run of taken) await succeed(run.id);
        },
      },
      { concurrency: 1, batchSize: 6 },
    );
    expect(await taking.drain(6)).toBe(6);
    // Together first, then each alone.
    expect(calls[0]).toHaveLength(6);
    expect(calls.slice(1)).toEqual(runs.map((run) => [run]));
    const statuses = await bed.sql<{ id: string; status: string }>(`SELECT id, status FROM automation_runs WHERE id = ANY(?::uuid[])`, [`{${runs.join(',')}}`]);
    expect(new Map(statuses.map((row) => [row.id, row.status]))).toEqual(new Map(runs.map((run) => [run, run === poisoned ? 'queued' : 'succeeded'])));
    // The poisoned run's job failed (retried after the queue's delay); the others' were completed.
    const left = await bed.sql<{ run_id: string; state: string }>(
      `SELECT data->>'runId' AS run_id, state FROM pgboss.job WHERE name = ? AND data->>'runId' = ANY(?::text[])`,
      [AUTOMATION_RUNS_QUEUE, `{${runs.join(',')}}`],
    );
    expect(new Map(left.map((row) => [row.run_id, row.state]))).toEqual(new Map(runs.map((run) => [run, run === poisoned ? 'retry' : 'completed'])));
  });

  it('takes a run again when its execution failed (a database error, a runner stopping), after the queue\'s retry delay', async () => {
    const organization = await bed.organization();
    const [run] = await queueRuns(organization, await bed.eventAutomation(organization), 1);
    const attempts: string[] = [];
    const taking = runner(
      {
        async execute(taken) {
          attempts.push(taken.id);
          if (attempts.length === 1) throw new Error('the connection was lost');
          await succeed(taken.id);
        },
      },
      // Polling stands in for the announcement no retry sends.
      { concurrency: 2, pollIntervalMs: 200 },
    );
    taking.start();
    await eventually(() => attempts.length === 2, 20_000);
    await taking.close();
    expect(attempts).toEqual([run, run]);
    expect(await bed.sql(`SELECT status FROM automation_runs WHERE id = ?`, [run])).toEqual([{ status: 'succeeded' }]);
  });

  it('keeps taking when a run finishes while a fetch is under way, with no other wake-up', async () => {
    const organization = await bed.organization();
    const automation = await bed.eventAutomation(organization);
    const [first] = await queueRuns(organization, automation, 1);
    const executed: string[] = [];
    let releaseFirst: () => void = () => undefined;
    const firstReleased = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstFinished: () => void = () => undefined;
    const firstDone = new Promise<void>((resolve) => (firstFinished = resolve));
    // Called before each fetch's statement: the second lets the first run finish first.
    let fetches = 0;
    const jobs: JobQueue = {
      ...bed.jobs,
      async fetch<TData extends RunJob>(queue: string, limit: number) {
        if (++fetches === 2) {
          releaseFirst();
          await firstDone;
          // Its slot is freed once its completion has been handled.
          await new Promise((resolve) => setImmediate(resolve));
        }
        return bed.jobs.fetch<TData>(queue, limit);
      },
    } as JobQueue;
    const taking = runner(
      {
        jobs,
        async execute(run) {
          if (run.id === first) await firstReleased;
          await succeed(run.id);
          executed.push(run.id);
          if (run.id === first) firstFinished();
        },
      },
      { concurrency: 3, slotsPerOrganization: 2 },
    );
    taking.wake();
    await eventually(() => fetches === 1);
    await eventually(async () => (await bed.sql(`SELECT 1 FROM pgboss.job WHERE name = ? AND state = 'active'`, [AUTOMATION_RUNS_QUEUE])).length === 1);
    const more = await queueRuns(organization, automation, 5);
    // As the announcement of their commit would.
    taking.wake('announced');
    await eventually(() => executed.length === 6);
    await taking.close();
    expect(new Set(executed)).toEqual(new Set([first, ...more]));
  });

  it('takes a run announced while a fetch that found nothing was under way, with no other wake-up', async () => {
    const organization = await bed.organization();
    const automation = await bed.eventAutomation(organization);
    let announced: string | undefined;
    // The first fetch's statement ran before the run was committed; its announcement arrives before the fetch returns.
    const jobs: JobQueue = {
      ...bed.jobs,
      async fetch<TData extends RunJob>(queue: string, limit: number) {
        const fetched = await bed.jobs.fetch<TData>(queue, limit);
        if (announced === undefined) {
          [announced] = await queueRuns(organization, automation, 1);
          taking.wake('announced');
        }
        return fetched;
      },
    } as JobQueue;
    const executed: string[] = [];
    const taking = runner({ jobs, execute: async (run) => void executed.push((await succeed(run.id), run.id)) }, { concurrency: 2 });
    taking.wake();
    await eventually(() => executed.length === 1);
    await taking.close();
    expect(executed).toEqual([announced]);
  });
});

/** Waits for `condition` (5 s at most, unless told): a runner that stopped taking runs never meets it. */
async function eventually(condition: () => boolean | Promise<boolean>, withinMs = 5_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`the condition was not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

