import { newId } from '@mrp/platform';
import { createRunTestBed, type RunTestBed } from '../../test/run-fixtures';
import { MAX_QUEUED_RUNS_PER_ORGANIZATION, MAX_RUNS_PER_CHAIN } from './run-bounds';
import { silentLogger } from '@mrp/platform/testing';
import { AutomationRunner } from './automation-runner';
import { claimDueRuns, enqueueRuns, type ClaimedRun, type QueuedRun } from './run-queue';

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
  const enqueue = (runs: QueuedRun[]) => bed.db.orm.em.fork().transactional((em) => enqueueRuns(em, runs));
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

describe('claiming queued runs', () => {
  let bed: RunTestBed;

  beforeAll(async () => {
    bed = await createRunTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });

  /** Queued runs older than any run a test queues after: a backlog. */
  const backlog = async (organizationId: string, automationId: string, runs: number) =>
    bed.sql(
      `INSERT INTO automation_runs (id, automation_id, organization_id, trigger, queued_at)
       SELECT gen_random_uuid(), ?, ?, 'event', now() - interval '1 hour' + make_interval(secs => n) FROM generate_series(1, ?) AS n`,
      [automationId, organizationId, runs],
    );
  const queue = async (organizationId: string, automationId: string) => {
    const [id] = await bed.sql<{ id: string }>(
      `INSERT INTO automation_runs (id, automation_id, organization_id, trigger) VALUES (?, ?, ?, 'http') RETURNING id`,
      [newId(), automationId, organizationId],
    );
    return id.id;
  };
  const release = () => bed.sql(`UPDATE automation_runs SET status = 'succeeded' WHERE status = 'queued'`);

  it("takes each organization's oldest run in turn: another's backlog never makes a run wait behind it", async () => {
    const noisy = await bed.organization();
    const quiet = await bed.organization();
    await backlog(noisy, await bed.eventAutomation(noisy), 500);
    const hook = await queue(quiet, await bed.eventAutomation(quiet));

    const claimed = await claimDueRuns(bed.em(), 2, 60);
    expect(claimed.map((run) => run.organizationId).sort()).toEqual([noisy, quiet].sort());
    expect(claimed.find((run) => run.organizationId === quiet)?.id).toBe(hook);
    // The rest are the noisy organization's, oldest first.
    expect((await claimDueRuns(bed.em(), 8, 60)).map((run) => run.organizationId)).toEqual(Array(8).fill(noisy));
    await release();
  });

  it("leaves an organization's slots to others: the runs in flight count, up to its share", async () => {
    const noisy = await bed.organization();
    const quiet = await bed.organization();
    await backlog(noisy, await bed.eventAutomation(noisy), 50);
    const inFlight = new Map([[noisy, 7]]);

    expect(await claimDueRuns(bed.em(), 1, 60, { inFlight, slotsPerOrganization: 7 })).toEqual([]);
    const hook = await queue(quiet, await bed.eventAutomation(quiet));
    expect((await claimDueRuns(bed.em(), 1, 60, { inFlight, slotsPerOrganization: 7 })).map((run) => run.id)).toEqual([hook]);
    // An organization with runs in flight waits its turn behind one with none.
    const second = await queue(quiet, (await bed.sql<{ automation_id: string }>('SELECT automation_id FROM automation_runs WHERE id = ?', [hook]))[0].automation_id);
    const claimed = await claimDueRuns(bed.em(), 2, 60, { inFlight: new Map([[noisy, 3]]), slotsPerOrganization: 7 });
    expect(claimed.map((run) => run.id)).toContain(second);
    await release();
  });

  it('keeps taking an organization held to its share of the slots as its runs finish, with no other wake-up', async () => {
    const organization = await bed.organization();
    await backlog(organization, await bed.eventAutomation(organization), 6);
    const executed: ClaimedRun[] = [];
    let allDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const runner = new AutomationRunner(
      {
        newContext: () => bed.em(),
        logger: silentLogger,
        admit: async (runs) => runs,
        async execute(run) {
          await bed.sql(`UPDATE automation_runs SET status = 'succeeded' WHERE id = ?`, [run.id]);
          executed.push(run);
          if (executed.length === 6) allDone();
        },
      },
      { concurrency: 2, slotsPerOrganization: 1 },
    );
    runner.wake();
    await done;
    await runner.close();
    expect(executed).toHaveLength(6);
  });

  it('keeps claiming when a run finishes while a claim is under way, with no other wake-up', async () => {
    const organization = await bed.organization();
    const automation = await bed.eventAutomation(organization);
    await queue(organization, automation);
    const executed: string[] = [];
    const finished = new Map<string, () => void>();
    let releaseFirst: () => void = () => undefined;
    const firstReleased = new Promise<void>((resolve) => (releaseFirst = resolve));
    // Called before each claim's statement: the second claim lets the first run finish first.
    let claims = 0;
    let beforeSecondClaim: () => Promise<void> = async () => undefined;
    const runner = new AutomationRunner(
      {
        newContext: () => {
          const em = bed.em();
          const execute = em.execute.bind(em) as (...args: unknown[]) => Promise<unknown>;
          (em as unknown as { execute: (...args: unknown[]) => Promise<unknown> }).execute = async (...args) => {
            if (++claims === 2) await beforeSecondClaim();
            return execute(...args);
          };
          return em;
        },
        logger: silentLogger,
        admit: async (runs) => runs,
        async execute(run) {
          if (executed.length === 0) await firstReleased;
          await bed.sql(`UPDATE automation_runs SET status = 'succeeded' WHERE id = ?`, [run.id]);
          executed.push(run.id);
          finished.get(run.id)?.();
        },
      },
      { concurrency: 3, slotsPerOrganization: 2 },
    );
    runner.wake();
    // The first claim has taken the one queued run (its statement has run, not merely started).
    let first: { id: string } | undefined;
    await eventually(async () => {
      [first] = await bed.sql<{ id: string }>(`SELECT id FROM automation_runs WHERE automation_id = ? AND locked_until IS NOT NULL`, [automation]);
      return first !== undefined;
    });
    const firstId = (first as { id: string }).id;
    for (let index = 0; index < 5; index++) await queue(organization, automation);
    beforeSecondClaim = async () => {
      const firstFinished = new Promise<void>((resolve) => finished.set(firstId, resolve));
      releaseFirst();
      await firstFinished;
      // Its slot is freed once its completion has been handled.
      await new Promise((resolve) => setImmediate(resolve));
    };
    // As a NOTIFY for the new runs would.
    runner.wake();
    await eventually(() => executed.length === 6);
    await runner.close();
    expect(new Set(executed).size).toBe(6);
  });
});

/** Waits for `condition` (5 s at most): a runner that stopped claiming never meets it. */
async function eventually(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the condition was not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

