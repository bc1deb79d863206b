import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '@mrp/platform';
import { claimDueRuns, type ClaimedRun } from './run-queue';

export interface AutomationRunnerOptions {
  /** Runs executing at once at most. */
  concurrency?: number;
  /**
   * Of those, the runs of one organization at most: by default all but one, so a slot is always
   * left for another organization's run however slow one organization's runs are.
   */
  slotsPerOrganization?: number;
  /** How long a claim holds a run; past it, the run of a runner that died is taken again. */
  leaseSeconds?: number;
}

export interface AutomationRunnerDeps {
  /** A fresh ORM context for each claim (never the global one). */
  newContext(): EntityManager;
  /** Which of the claimed runs go ahead (`automations.runs.admit`); the others are recorded as skipped or failed. */
  admit(runs: ClaimedRun[]): Promise<ClaimedRun[]>;
  /** Executes an admitted run (`automations.runs.execute`). */
  execute(run: ClaimedRun): Promise<void>;
  logger: Logger;
}

/**
 * Claims queued runs and executes them, a bounded number at once. `wake()` asks for a claim now
 * (a NOTIFY, a poll tick); `drain()` runs what is queued until nothing is left and returns how
 * many runs it took (the scheduled task's fallback, for deployments whose runner is down).
 */
export class AutomationRunner {
  private readonly concurrency: number;
  private readonly leaseSeconds: number;
  private readonly slotsPerOrganization: number;
  private readonly running = new Set<Promise<void>>();
  /** Runs executing here now, by organization. */
  private readonly inFlight = new Map<string, number>();
  private claiming: Promise<number> | undefined;
  private wakeAgain = false;
  /** The last claim took all it asked for: more may be queued. */
  private mayHaveMore = false;
  private closed = false;

  constructor(
    private readonly deps: AutomationRunnerDeps,
    options: AutomationRunnerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 8;
    this.leaseSeconds = options.leaseSeconds ?? 60;
    this.slotsPerOrganization = Math.min(this.concurrency, options.slotsPerOrganization ?? Math.max(1, this.concurrency - 1));
  }

  wake(): void {
    if (this.closed) return;
    if (this.claiming) {
      this.wakeAgain = true;
      return;
    }
    this.claiming = this.claimAndStart().finally(() => {
      this.claiming = undefined;
      if (this.wakeAgain) {
        this.wakeAgain = false;
        this.wake();
      }
    });
    this.claiming.catch((error: unknown) => this.deps.logger.error({ err: error }, 'automation runner could not claim runs'));
  }

  /** Runs the runs due now (up to `max`), this process's share when others drain too; resolves with how many it took. */
  async drain(max = 1000): Promise<number> {
    let taken = 0;
    while (taken < max) {
      const claimed = await claimDueRuns(this.deps.newContext(), Math.min(this.concurrency, max - taken), this.leaseSeconds);
      if (claimed.length === 0) break;
      taken += claimed.length;
      await Promise.all((await this.admit(claimed)).map((run) => this.execute(run)));
    }
    return taken;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.claiming?.catch(() => undefined);
    await Promise.all(this.running);
  }

  private async claimAndStart(): Promise<number> {
    const free = this.concurrency - this.running.size;
    if (free <= 0) return 0;
    // The claim's shares are counted from this snapshot: runs that finish while it is under way must
    // not make a full share look partial, or the runner would stop claiming with runs still queued.
    const inFlightAtClaim = new Map(this.inFlight);
    const claimed = await claimDueRuns(this.deps.newContext(), free, this.leaseSeconds, {
      inFlight: inFlightAtClaim,
      slotsPerOrganization: this.slotsPerOrganization,
    });
    // An organization given its whole share of the slots may have more queued, left for a slot it frees.
    const share = inFlightAtClaim;
    for (const run of claimed) share.set(run.organizationId, (share.get(run.organizationId) ?? 0) + 1);
    this.mayHaveMore = claimed.length === free || [...share.values()].some((runs) => runs >= this.slotsPerOrganization);
    for (const run of await this.admit(claimed)) {
      this.inFlight.set(run.organizationId, (this.inFlight.get(run.organizationId) ?? 0) + 1);
      const execution = this.execute(run).finally(() => {
        this.running.delete(execution);
        const runs = (this.inFlight.get(run.organizationId) ?? 1) - 1;
        if (runs > 0) this.inFlight.set(run.organizationId, runs);
        else this.inFlight.delete(run.organizationId);
        // A freed slot takes the next queued run, if the last claim suggests there is one.
        if (this.mayHaveMore) this.wake();
      });
      this.running.add(execution);
    }
    return claimed.length;
  }

  private async admit(claimed: ClaimedRun[]): Promise<ClaimedRun[]> {
    if (claimed.length === 0) return [];
    try {
      return await this.deps.admit(claimed);
    } catch (error) {
      // The claims run out and the runs are taken again.
      this.deps.logger.error({ err: error }, 'automation runs could not be admitted; they will be retried');
      return [];
    }
  }

  private async execute(run: ClaimedRun): Promise<void> {
    try {
      await this.deps.execute(run);
    } catch (error) {
      // The claim runs out and the run is taken again (at most MAX_RUN_ATTEMPTS times).
      this.deps.logger.error({ err: error, runId: run.id }, 'automation run could not be executed; it will be retried');
    }
  }
}
