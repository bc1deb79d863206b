/**
 * The bounds that keep one organization's automations (a loop of automations feeding their own
 * trigger, a flood of events) from stalling every other organization's runs. They are applied
 * where runs are queued (run-queue.ts) and claimed (the fair share per organization), whatever
 * queue carries the runs. See docs/automations.md, "Bounds".
 */

/** An automation's runs queued in any minute (its maxRunsPerMinute) are counted over this window. */
export const RUN_RATE_WINDOW_MS = 60_000;

/**
 * Runs one change may cause in total through a chain of automations triggering one another: its
 * root run (the first, caused by no automation) and every run that follows from it.
 */
export const MAX_RUNS_PER_CHAIN = 1_000;

/** Runs of one organization queued and not yet finished; beyond it, event runs are skipped until the queue shrinks. */
export const MAX_QUEUED_RUNS_PER_ORGANIZATION = 10_000;

/** A chain's counter is dropped once no run of it was queued for this long (the schedules task prunes). */
export const CHAIN_COUNTER_RETENTION_HOURS = 24;

export type SkipReason = 'rate' | 'chain' | 'organization-queue';

/** What the run log says of a skipped row standing for the runs over a bound in one minute (`skippedRuns` counts them). */
export const SKIP_REASON_MESSAGES: Readonly<Record<SkipReason, string>> = {
  rate: 'Rate limit: the automation runs at most {maxRunsPerMinute} times a minute; the runs over it in this minute were not queued',
  chain: `Stopped: the change at the root of this chain of automations has caused ${MAX_RUNS_PER_CHAIN.toLocaleString('en-US')} runs (at most ${MAX_RUNS_PER_CHAIN.toLocaleString('en-US')} per change); the runs over it were not queued`,
  'organization-queue': `The organization has ${MAX_QUEUED_RUNS_PER_ORGANIZATION.toLocaleString('en-US')} runs queued (at most ${MAX_QUEUED_RUNS_PER_ORGANIZATION.toLocaleString('en-US')}); the runs over it were not queued`,
};
