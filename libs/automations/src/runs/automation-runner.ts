import type { EntityManager } from '@mikro-orm/postgresql';
import type { Job, JobQueue, Logger } from '@mrp/platform';
import { MAX_RUNS_PER_ADMISSION } from './run-admission';
import { MAX_RUNS_PER_EXECUTION } from './run-execution';
import { AUTOMATION_RUNS_QUEUE, type RunJob } from './run-queue';

/** A run taken from the queue, as its job names it. */
export interface ClaimedRun {
  id: string;
  automationId: string;
  organizationId: string;
  chain: string[];
}

export interface AutomationRunnerOptions {
  /** Executions at once at most: the slots, each one transaction. */
  concurrency?: number;
  /**
   * Runs of one organization a slot executes together, in one transaction, when that many wait
   * (default 16): one lock, one owner lookup, one read check per model and one COMMIT serve them
   * all (decision 163). 1 runs each alone.
   */
  batchSize?: number;
  /**
   * Of the slots, those one organization holds at most: by default all but one, so a slot is
   * always left for another organization's runs however slow one organization's runs are.
   */
  slotsPerOrganization?: number;
  /** How often the runner looks for runs without being told (retries coming due, a lost wake-up). */
  pollIntervalMs?: number;
}

export interface AutomationRunnerDeps {
  jobs: JobQueue;
  /** A fresh ORM context (never the global one), for handing jobs back in a transaction. */
  newContext(): EntityManager;
  /** Which of the taken runs go ahead (`automations.runs.admit`); the others are recorded as skipped or failed. */
  admit(runs: ClaimedRun[]): Promise<ClaimedRun[]>;
  /** Executes admitted runs of one organization, in one transaction (`automations.runs.execute`): all are kept, or none. */
  execute(runs: ClaimedRun[]): Promise<void>;
  logger: Logger;
}

/**
 * After a run's job was handed back (its organization at its share), the next wake-up by an
 * announcement looks again no sooner than this: a flood of one organization's own announcements
 * does not make the runner fetch and hand back its jobs over and over.
 */
const HAND_BACK_PAUSE_MS = 100;

const asRun = (job: Job<RunJob>): ClaimedRun => ({
  id: job.data.runId,
  automationId: job.data.automationId,
  organizationId: job.data.organizationId,
  chain: job.data.chain,
});

/**
 * Takes runs from the `automation-runs` job queue and executes them in a bounded number of slots,
 * each slot one transaction for up to `batchSize` runs of one organization (decision 163), sharing
 * the slots among organizations (decision 156): the queue hands out each organization's runs by
 * turn (an organization's first waiting run before anyone's second), and this runner gives one
 * organization at most `slotsPerOrganization` slots; a job beyond that share is handed back to the
 * queue, in its turn, for a slot another organization may take. Woken by the queue's
 * announcements, by a slot coming free, and by its poll. `drain()` runs what is due until nothing
 * is left and returns how many runs it took (the scheduled task's fallback for deployments whose
 * runner is down).
 */
export class AutomationRunner {
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly slotsPerOrganization: number;
  private readonly pollIntervalMs: number;
  /** The slots in use: one execution each. */
  private readonly running = new Set<Promise<void>>();
  /** Slots in use, by organization. */
  private readonly inFlight = new Map<string, number>();
  /** How many jobs a fetch takes for each free slot, from 1 up to `batchSize`: see fetchAndStart. */
  private jobsPerSlot = 1;
  private fetching: Promise<void> | undefined;
  private wakeAgain = false;
  /** The last fetch took all it asked for, or something was announced since it began: more may be due. */
  private mayHaveMore = true;
  /** Wake-ups other than a run finishing, counted: one during a fetch may be for a job that fetch could not see. */
  private announcements = 0;
  /** When a job was last handed back; until something new is announced, fetch only what the busiest organization may still take. */
  private handedBackAt: number | undefined;
  private lookAgain = false;
  private pauseTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private unsubscribe: (() => void) | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  /** Jobs settled and not yet completed in the queue: completed together, one statement for all. */
  private readonly toComplete: string[] = [];
  private completing: Promise<void> | undefined;

  constructor(
    private readonly deps: AutomationRunnerDeps,
    options: AutomationRunnerOptions = {},
  ) {
    // A fetch (a job per free slot at least) is admitted in one call.
    this.concurrency = Math.max(1, Math.min(options.concurrency ?? 8, MAX_RUNS_PER_ADMISSION));
    this.batchSize = Math.max(1, Math.min(options.batchSize ?? 16, MAX_RUNS_PER_EXECUTION, Math.floor(MAX_RUNS_PER_ADMISSION / this.concurrency)));
    this.slotsPerOrganization = Math.min(this.concurrency, options.slotsPerOrganization ?? Math.max(1, this.concurrency - 1));
    this.pollIntervalMs = options.pollIntervalMs ?? 5000;
  }

  /** Listens for announced runs (once the job queue has started) and polls; takes what is due now. */
  start(): void {
    if (this.closed || this.unsubscribe) return;
    this.unsubscribe = this.deps.jobs.onDue([AUTOMATION_RUNS_QUEUE], () => this.wake('announced'));
    this.pollTimer = setInterval(() => this.wake('poll'), this.pollIntervalMs);
    this.pollTimer.unref();
    this.wake('poll');
  }

  /**
   * Looks for runs now: `announced` (jobs were queued), `finished` (a slot was freed), `poll`.
   * Only one fetch is under way at a time; a wake-up during it makes it look again after.
   */
  wake(reason: 'announced' | 'finished' | 'poll' = 'announced'): void {
    if (this.closed) return;
    if (reason !== 'finished') {
      this.announcements++;
      this.mayHaveMore = true;
      // New jobs may be another organization's: worth a look with every free slot, once the pause is over.
      this.lookAgain = true;
    }
    if (this.fetching) {
      this.wakeAgain = true;
      return;
    }
    this.fetching = this.fetchAndStart()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'automation runner could not take runs'))
      .finally(() => {
        this.fetching = undefined;
        if (this.wakeAgain) {
          this.wakeAgain = false;
          this.wake('finished');
        }
      });
  }

  /**
   * Runs the runs due now (up to `max`), this process's share when others drain too; resolves with
   * how many it took. The slots execute while the next jobs are taken and admitted, so they do not
   * wait on the queue; each fetch's jobs are completed together once its runs are done.
   */
  async drain(max = 1000): Promise<number> {
    let taken = 0;
    const slots = new Slots(this.concurrency);
    const running = new Set<Promise<void>>();
    while (taken < max) {
      // At most one fetch's executions wait for slots while another's run.
      while (running.size > this.concurrency) await Promise.race(running);
      const jobs = await this.deps.jobs.fetch<RunJob>(AUTOMATION_RUNS_QUEUE, Math.min(this.concurrency * this.batchSize, max - taken));
      if (jobs.length === 0) {
        // The runs still executing may queue more (a chain of automations).
        if (running.size === 0) break;
        await Promise.race(running);
        continue;
      }
      taken += jobs.length;
      const batches = this.batchesOf(jobs, () => true);
      for (const execution of this.admitAndExecute(batches.batches, slots)) {
        const tracked = execution.finally(() => running.delete(tracked));
        running.add(tracked);
      }
    }
    await Promise.all(running);
    await this.flushCompletions();
    return taken;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    clearInterval(this.pollTimer);
    clearTimeout(this.pauseTimer);
    await this.fetching;
    await Promise.all(this.running);
    await this.flushCompletions();
  }

  private async fetchAndStart(): Promise<void> {
    const free = this.concurrency - this.running.size;
    if (free <= 0 || !this.mayHaveMore) return;
    let slotsWanted = free;
    const paused = this.handedBackAt !== undefined && (!this.lookAgain || performance.now() - this.handedBackAt < HAND_BACK_PAUSE_MS);
    if (paused) {
      // Since a job was handed back, nothing new was announced (or only just): the next jobs are likely
      // the busiest organization's again, so take only what it may still run.
      if (this.lookAgain) this.lookAfterPause();
      slotsWanted = Math.min(free, this.slotsPerOrganization - Math.max(0, ...this.inFlight.values()));
      if (slotsWanted <= 0) return;
    } else {
      this.lookAgain = false;
    }
    const wanted = slotsWanted * this.jobsPerSlot;
    const announcementsBefore = this.announcements;
    const jobs = await this.deps.jobs.fetch<RunJob>(AUTOMATION_RUNS_QUEUE, wanted);
    // A job committed while the fetch ran may have been invisible to it: only an unannounced short fetch says the queue is empty.
    this.mayHaveMore = jobs.length === wanted || this.announcements !== announcementsBefore;
    // Slots only came free during the fetch: `free` of them are still there.
    let slotsLeft = free;
    let noSlotLeft = false;
    const { batches, handBack } = this.batchesOf(jobs, (organization) => {
      const held = this.inFlight.get(organization) ?? 0;
      if (held >= this.slotsPerOrganization) return false;
      if (slotsLeft === 0) {
        noSlotLeft = true;
        return false;
      }
      slotsLeft--;
      this.inFlight.set(organization, held + 1);
      return true;
    });
    // Take more jobs a slot while they come in batches (one organization's backlog), fewer when
    // they came from more organizations than there were slots: each of those is handed back.
    if (noSlotLeft) this.jobsPerSlot = Math.max(1, Math.floor(this.jobsPerSlot / 2));
    else if (batches.length < jobs.length - handBack.length) this.jobsPerSlot = Math.min(this.batchSize, this.jobsPerSlot * 2);
    if (handBack.length > 0) {
      this.handedBackAt = performance.now();
      this.mayHaveMore = true;
      await this.handBack(handBack);
    } else if (jobs.length > 0 && !paused) {
      this.handedBackAt = undefined;
    }
    if (batches.length === 0) return;
    const executions = this.admitAndExecute(batches);
    batches.forEach((batch, index) => {
      const organization = batch[0].data.organizationId;
      const execution = executions[index].finally(() => {
        this.running.delete(execution);
        const held = (this.inFlight.get(organization) ?? 1) - 1;
        if (held > 0) this.inFlight.set(organization, held);
        else this.inFlight.delete(organization);
        this.wake('finished');
      });
      this.running.add(execution);
    });
  }

  /**
   * The jobs, lowest turns first (the batch comes in no particular order), grouped into batches of
   * one organization of up to `batchSize` each; a job that would open a batch where `takeSlot`
   * refuses its organization one is handed back.
   */
  private batchesOf(jobs: Array<Job<RunJob>>, takeSlot: (organizationId: string) => boolean): { batches: Array<Array<Job<RunJob>>>; handBack: Array<Job<RunJob>> } {
    const batches: Array<Array<Job<RunJob>>> = [];
    const handBack: Array<Job<RunJob>> = [];
    const filling = new Map<string, Array<Job<RunJob>>>();
    for (const job of [...jobs].sort((a, b) => a.data.turn - b.data.turn)) {
      const organization = job.data.organizationId;
      const batch = filling.get(organization);
      if (batch && batch.length < this.batchSize) {
        batch.push(job);
        continue;
      }
      if (!takeSlot(organization)) {
        handBack.push(job);
        continue;
      }
      const opened = [job];
      filling.set(organization, opened);
      batches.push(opened);
    }
    return { batches, handBack };
  }

  private lookAfterPause(): void {
    if (this.pauseTimer) return;
    this.pauseTimer = setTimeout(() => {
      this.pauseTimer = undefined;
      this.wake('finished');
    }, HAND_BACK_PAUSE_MS + 1);
    this.pauseTimer.unref();
  }

  /**
   * A job over its organization's share, or for which no slot was left, goes back to the queue as
   * it was queued (its turn as priority), in one transaction: completed here, a copy queued with
   * the COMMIT, not announced.
   */
  private async handBack(jobs: Array<Job<RunJob>>): Promise<void> {
    const queue = this.deps.jobs;
    try {
      await this.deps.newContext().transactional(async (em) => {
        await queue.complete(AUTOMATION_RUNS_QUEUE, jobs.map((job) => job.id), em);
        await queue.enqueueAtCommit(em, jobs.map((job) => ({ queue: AUTOMATION_RUNS_QUEUE, data: job.data, priority: -job.data.turn })));
      });
      // Not announced: it was due before, so no idle runner is waiting for it, and announcing it would wake this one.
    } catch (error) {
      // They expire and are taken again.
      this.deps.logger.error({ err: error }, 'automation runs could not be handed back to the queue; they will be taken again when they expire');
    }
  }

  /**
   * Admits the batches' runs in one call, then executes each batch's admitted runs together (in one
   * of `slots`, when given: then all the jobs are completed together at the end); one promise per
   * batch. A batch whose execution fails is executed again run by run, so a run that cannot be
   * executed holds back no other; a run that fails alone is retried as the queue says.
   */
  private admitAndExecute(batches: Array<Array<Job<RunJob>>>, slots?: Slots): Array<Promise<void>> {
    const admission = this.deps.admit(batches.flat().map(asRun)).then(
      (admitted) => new Set(admitted.map((run) => run.id)),
      (error: unknown) => {
        this.deps.logger.error({ err: error }, 'automation runs could not be admitted; they will be retried');
        return error instanceof Error ? error : new Error(String(error));
      },
    );
    // Jobs to complete (failed ones are retried as the queue says).
    const settled: string[] = [];
    let unsettled = batches.length;
    const settle = (jobIds: string[]) => {
      settled.push(...jobIds);
      if (slots && --unsettled > 0) return;
      for (const id of settled.splice(0)) this.complete(id);
    };
    return batches.map(async (batch) => {
      const admitted = await admission;
      if (admitted instanceof Error) {
        await this.fail(batch, admitted);
        settle([]);
        return;
      }
      // Not admitted: recorded as skipped or failed, or no longer queued (done by a runner whose job expired).
      const toRun = batch.filter((job) => admitted.has(job.data.runId));
      const done = batch.filter((job) => !admitted.has(job.data.runId));
      if (toRun.length > 0) done.push(...(await (slots ? slots.run(() => this.execute(toRun)) : this.execute(toRun))));
      settle(done.map((job) => job.id));
    });
  }

  /** Executes the jobs' runs together, or one by one if that fails; answers the jobs whose runs were executed. */
  private async execute(jobs: Array<Job<RunJob>>): Promise<Array<Job<RunJob>>> {
    try {
      await this.deps.execute(jobs.map(asRun));
      return jobs;
    } catch (error) {
      if (jobs.length === 1) {
        this.deps.logger.error({ err: error, runId: jobs[0].data.runId }, 'automation run could not be executed; it will be retried');
        await this.fail(jobs, error);
        return [];
      }
      this.deps.logger.warn({ err: error, runIds: jobs.map((job) => job.data.runId) }, 'automation runs executed together failed; executing them one by one');
    }
    const executed: Array<Job<RunJob>> = [];
    for (const job of jobs) executed.push(...(await this.execute([job])));
    return executed;
  }

  private async fail(jobs: Array<Job<RunJob>>, error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    // Retried after the queue's delay, at most MAX_RUN_ATTEMPTS times by the run's own count.
    await this.deps.jobs.fail(AUTOMATION_RUNS_QUEUE, jobs.map((job) => job.id), reason).catch((failed: unknown) => {
      this.deps.logger.error({ err: failed, runIds: jobs.map((job) => job.data.runId) }, 'automation run jobs could not be failed; they will expire and be retried');
    });
  }

  private complete(jobId: string): void {
    this.toComplete.push(jobId);
    this.completing ??= this.completeAll();
  }

  private async completeAll(): Promise<void> {
    while (this.toComplete.length > 0) {
      const ids = this.toComplete.splice(0);
      // A job not completed expires and runs again: its run, finished, is then not admitted, and completes.
      await this.deps.jobs.complete(AUTOMATION_RUNS_QUEUE, ids).catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'automation run jobs could not be completed; they will expire and complete then');
      });
    }
    this.completing = undefined;
  }

  private async flushCompletions(): Promise<void> {
    while (this.completing) await this.completing;
  }
}

/** At most `size` pieces of work at once; the others wait their turn, first come first served. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
