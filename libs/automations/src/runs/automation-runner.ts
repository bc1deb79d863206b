import type { EntityManager } from '@mikro-orm/postgresql';
import type { Job, JobQueue, Logger } from '@mrp/platform';
import { AUTOMATION_RUNS_QUEUE, type RunJob } from './run-queue';

/** A run taken from the queue, as its job names it. */
export interface ClaimedRun {
  id: string;
  automationId: string;
  organizationId: string;
  chain: string[];
}

export interface AutomationRunnerOptions {
  /** Runs executing at once at most. */
  concurrency?: number;
  /**
   * Of those, the runs of one organization at most: by default all but one, so a slot is always
   * left for another organization's run however slow one organization's runs are.
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
  /** Executes an admitted run (`automations.runs.execute`). */
  execute(run: ClaimedRun): Promise<void>;
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
 * Takes runs from the `automation-runs` job queue and executes them, a bounded number at once,
 * sharing its slots among organizations (decision 156): the queue hands out each organization's
 * runs by turn (an organization's first waiting run before anyone's second), and this runner holds
 * at most `slotsPerOrganization` runs of one organization; a job over that share is handed back
 * to the queue, in its turn, for a slot another organization may take. Woken by the queue's
 * announcements, by a run finishing, and by its poll. `drain()` runs what is due until nothing is
 * left and returns how many runs it took (the scheduled task's fallback for deployments whose
 * runner is down).
 */
export class AutomationRunner {
  private readonly concurrency: number;
  private readonly slotsPerOrganization: number;
  private readonly pollIntervalMs: number;
  private readonly running = new Set<Promise<void>>();
  /** Runs taken here and not finished, by organization. */
  private readonly inFlight = new Map<string, number>();
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
    this.concurrency = options.concurrency ?? 8;
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
   * how many it took. `concurrency` runs execute at once while the next batch is taken and admitted,
   * so the slots do not wait on the queue; each batch's jobs are completed together once it is done.
   */
  async drain(max = 1000): Promise<number> {
    let taken = 0;
    const slots = new Slots(this.concurrency);
    const running = new Set<Promise<void>>();
    while (taken < max) {
      // At most one batch waits for slots while another runs.
      while (running.size > this.concurrency) await Promise.race(running);
      const jobs = await this.deps.jobs.fetch<RunJob>(AUTOMATION_RUNS_QUEUE, Math.min(this.concurrency, max - taken));
      if (jobs.length === 0) {
        // The runs still executing may queue more (a chain of automations).
        if (running.size === 0) break;
        await Promise.race(running);
        continue;
      }
      taken += jobs.length;
      for (const execution of this.admitAndExecute(jobs, slots)) {
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
    let wanted = free;
    const paused = this.handedBackAt !== undefined && (!this.lookAgain || performance.now() - this.handedBackAt < HAND_BACK_PAUSE_MS);
    if (paused) {
      // Since a job was handed back, nothing new was announced (or only just): the next jobs are likely
      // the busiest organization's again, so take only what it may still run.
      if (this.lookAgain) this.lookAfterPause();
      wanted = Math.min(free, this.slotsPerOrganization - Math.max(0, ...this.inFlight.values()));
      if (wanted <= 0) return;
    } else {
      this.lookAgain = false;
    }
    const announcementsBefore = this.announcements;
    const jobs = await this.deps.jobs.fetch<RunJob>(AUTOMATION_RUNS_QUEUE, wanted);
    // A job committed while the fetch ran may have been invisible to it: only an unannounced short fetch says the queue is empty.
    this.mayHaveMore = jobs.length === wanted || this.announcements !== announcementsBefore;
    const toRun: Array<Job<RunJob>> = [];
    const handBack: Array<Job<RunJob>> = [];
    // The batch comes in no particular order: the lowest turns go first within it.
    for (const job of [...jobs].sort((a, b) => a.data.turn - b.data.turn)) {
      const organization = job.data.organizationId;
      const held = this.inFlight.get(organization) ?? 0;
      if (held >= this.slotsPerOrganization) {
        handBack.push(job);
        continue;
      }
      this.inFlight.set(organization, held + 1);
      toRun.push(job);
    }
    if (handBack.length > 0) {
      this.handedBackAt = performance.now();
      this.mayHaveMore = true;
      await this.handBack(handBack);
    } else if (jobs.length > 0 && !paused) {
      this.handedBackAt = undefined;
    }
    if (toRun.length === 0) return;
    const executions = this.admitAndExecute(toRun);
    toRun.forEach((job, index) => {
      const execution = executions[index].finally(() => {
        this.running.delete(execution);
        const runs = (this.inFlight.get(job.data.organizationId) ?? 1) - 1;
        if (runs > 0) this.inFlight.set(job.data.organizationId, runs);
        else this.inFlight.delete(job.data.organizationId);
        this.wake('finished');
      });
      this.running.add(execution);
    });
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
   * A job over its organization's share goes back to the queue as it was queued (its turn as
   * priority), in one transaction: completed here, a copy queued with the COMMIT, announced after.
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
   * Admits the jobs' runs in one call, then executes each admitted one (in one of `slots`, when
   * given: then the batch's jobs are completed together at its end); one promise per job.
   */
  private admitAndExecute(jobs: Array<Job<RunJob>>, slots?: Slots): Array<Promise<void>> {
    const admission = this.deps.admit(jobs.map(asRun)).then(
      (admitted) => new Set(admitted.map((run) => run.id)),
      (error: unknown) => {
        this.deps.logger.error({ err: error }, 'automation runs could not be admitted; they will be retried');
        return error instanceof Error ? error : new Error(String(error));
      },
    );
    // A job to complete, or none (failed: retried as the queue says).
    const settled: string[] = [];
    let unsettled = jobs.length;
    const settle = (jobId?: string) => {
      if (jobId) settled.push(jobId);
      if (slots && --unsettled > 0) return;
      for (const id of settled.splice(0)) this.complete(id);
    };
    return jobs.map(async (job) => {
      const admitted = await admission;
      if (admitted instanceof Error) {
        await this.fail(job, admitted);
        settle();
        return;
      }
      // Not admitted: recorded as skipped or failed, or no longer queued (done by a runner whose job expired).
      if (admitted.has(job.data.runId)) {
        try {
          await (slots ? slots.run(() => this.deps.execute(asRun(job))) : this.deps.execute(asRun(job)));
        } catch (error) {
          this.deps.logger.error({ err: error, runId: job.data.runId }, 'automation run could not be executed; it will be retried');
          await this.fail(job, error);
          settle();
          return;
        }
      }
      settle(job.id);
    });
  }

  private async fail(job: Job<RunJob>, error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    // Retried after the queue's delay, at most MAX_RUN_ATTEMPTS times by the run's own count.
    await this.deps.jobs.fail(AUTOMATION_RUNS_QUEUE, [job.id], reason).catch((failed: unknown) => {
      this.deps.logger.error({ err: failed, runId: job.data.runId }, 'automation run job could not be failed; it will expire and be retried');
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
