import type { EntityManager } from '@mikro-orm/postgresql';
import { newId, type JobData, type JobQueue } from '@mrp/platform';
import type { RunTrigger } from '../definitions/automation-schemas';
import { CHAIN_COUNTER_RETENTION_HOURS, MAX_QUEUED_RUNS_PER_ORGANIZATION, MAX_RUNS_PER_CHAIN, RUN_RATE_WINDOW_MS, SKIP_REASON_MESSAGES } from './run-bounds';

/** The job queue of automation runs (created by this lib's migrations): one job per queued run. */
export const AUTOMATION_RUNS_QUEUE = 'automation-runs';

/** What a run's job carries: the run (its row is the log) and what the runner needs before reading it. */
export interface RunJob extends JobData {
  runId: string;
  organizationId: string;
  automationId: string;
  /** The automations whose runs led to this one, oldest first. */
  chain: string[];
  /**
   * The run's turn in its organization when it was queued: how many of the organization's runs were
   * queued and unfinished before it. The job's priority is its negation, so the queue hands out
   * every organization's first waiting run before anyone's second (decision 156).
   */
  turn: number;
}

export interface QueuedRun {
  automationId: string;
  organizationId: string;
  trigger: RunTrigger;
  input?: unknown;
  /** The event of an event trigger, as it was emitted. */
  event?: unknown;
  /** The automations whose runs led to this one, oldest first. */
  chain?: readonly string[];
  /** The run whose work emitted the event (the event's `causedBy.automationRunId`): its chain's root is this run's. */
  causedByRunId?: string;
  scheduledFor?: Date;
  triggeredBy?: string;
}

/** The smallest UUIDv7 of the given millisecond: every id generated from then on sorts at or after it. */
export function firstIdAt(epochMs: number): string {
  const hex = Math.max(0, Math.floor(epochMs)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/**
 * Queues runs in the caller's transaction, within the queue-time bounds (docs/automations.md,
 * "Bounds"; each a named constant of run-bounds.ts, so they survive a change of queue):
 *   - the automation's rate: runs queued in the last minute, counted through the
 *     (automation_id, id) index, ids being time-ordered; no lock is taken, so record writes that
 *     match the automation never wait on one another for it (a bucket on the automation's row
 *     would hold its lock until each write commits). Concurrent writes may let a few runs over.
 *   - the chain: a run an automation run caused counts against its chain's root run in
 *     automation_chain_runs, incremented by this statement; only the runs of one runaway chain
 *     ever wait on its counter row.
 *   - the organization's queue: runs queued and not yet finished, counted through
 *     (organization_id, queued_at); the count stops at the cap.
 * A run over a bound is not queued: it is recorded in one skipped row per automation, minute and
 * bound, whose skipped_runs counts them, so skipping is no growth vector of its own (writes over
 * a bound wait on one another for that row, and only while over it). Schedule slots are exempt
 * (at most one a minute per automation, unique per slot).
 *
 * Each run queued gets its job in the same transaction, with its organization's turn as priority.
 *
 * Answered, in the order given, the id of each run: queued, or of the skipped row that counts it;
 * null for a schedule slot already queued. The runners are woken at commit by a NOTIFY in this
 * transaction unless `wake` is 'after-commit': then the jobs go with the COMMIT and the caller
 * announces them once it committed (the event outbox does, coalesced, so that record writes do not
 * all queue on PostgreSQL's one notification lock: decision 89).
 */
export async function enqueueRuns(
  jobs: JobQueue,
  em: EntityManager,
  runs: readonly QueuedRun[],
  wake: 'at-commit' | 'after-commit' = 'at-commit',
): Promise<Array<string | null>> {
  if (runs.length === 0) return [];
  const rows = runs.map((run, index) => ({
    n: index,
    id: newId(),
    automation_id: run.automationId,
    organization_id: run.organizationId,
    trigger: run.trigger,
    input: run.input ?? {},
    event: run.event ?? null,
    chain: run.chain ?? [],
    caused_by_run_id: run.causedByRunId ?? null,
    scheduled_for: run.scheduledFor?.toISOString() ?? null,
    triggered_by: run.triggeredBy ?? null,
  }));
  const answered = await em.execute<Array<{ n: number; id: string | null; queued: boolean; turn: number | string }>>(
    `WITH candidates AS (
       SELECT r.*, a.max_runs_per_minute, coalesce(cause.root_run_id, cause.id, r.id) AS root_run_id
         FROM jsonb_to_recordset(?::jsonb) AS r(n int, id uuid, automation_id uuid, organization_id uuid, trigger text, input jsonb,
                                               event jsonb, chain jsonb, caused_by_run_id uuid, scheduled_for timestamptz, triggered_by text)
       -- An event run only for an automation that still takes events: the outbox's routes may be a change behind.
       JOIN automations a ON a.id = r.automation_id AND (r.trigger <> 'event' OR (a.enabled AND a.trigger_type = 'event'))
       LEFT JOIN automation_runs cause ON cause.id = r.caused_by_run_id
     ), ranked AS (
       SELECT c.*,
              count(*) FILTER (WHERE c.caused_by_run_id IS NOT NULL) OVER (PARTITION BY c.root_run_id) AS chain_batch,
              row_number() OVER (PARTITION BY c.root_run_id ORDER BY c.n) AS nth_of_chain,
              row_number() OVER (PARTITION BY c.automation_id ORDER BY c.n) AS nth_of_automation,
              row_number() OVER (PARTITION BY c.organization_id ORDER BY c.n) AS nth_of_organization
         FROM candidates c
     ), chain_runs AS (
       INSERT INTO automation_chain_runs AS counted (root_run_id, runs)
       SELECT root_run_id, count(*) FROM ranked WHERE caused_by_run_id IS NOT NULL AND trigger <> 'schedule' GROUP BY root_run_id
       ON CONFLICT (root_run_id) DO UPDATE SET runs = counted.runs + excluded.runs, last_queued_at = now()
       RETURNING root_run_id, runs
     ), recent AS (
       SELECT a.automation_id,
              (SELECT count(*) FROM (SELECT 1 FROM automation_runs q WHERE q.automation_id = a.automation_id AND q.id >= ?::uuid
                                      LIMIT a.max_runs_per_minute) AS l) AS runs
         FROM (SELECT DISTINCT automation_id, max_runs_per_minute FROM ranked WHERE trigger <> 'schedule') AS a
     ), waiting AS (
       SELECT o.organization_id,
              (SELECT count(*) FROM (SELECT 1 FROM automation_runs q WHERE q.organization_id = o.organization_id AND q.status = 'queued'
                                      LIMIT ?::int) AS l) AS runs
         FROM (SELECT DISTINCT organization_id FROM ranked) AS o
     ), decided AS (
       SELECT r.*, CASE
                WHEN r.trigger = 'schedule' THEN NULL
                WHEN r.caused_by_run_id IS NOT NULL AND ch.runs - r.chain_batch + r.nth_of_chain >= ?::int THEN 'chain'
                WHEN rc.runs + r.nth_of_automation > r.max_runs_per_minute THEN 'rate'
                WHEN w.runs + r.nth_of_organization > ?::int THEN 'organization-queue'
              END AS skip_reason,
              w.runs AS waiting_runs
         FROM ranked r
         LEFT JOIN chain_runs ch ON ch.root_run_id = r.root_run_id
         LEFT JOIN recent rc ON rc.automation_id = r.automation_id
         LEFT JOIN waiting w ON w.organization_id = r.organization_id
     ), queued AS (
       INSERT INTO automation_runs (id, automation_id, organization_id, trigger, input, event, chain, scheduled_for, triggered_by, root_run_id)
       SELECT id, automation_id, organization_id, trigger, input, event, ARRAY(SELECT jsonb_array_elements_text(chain)), scheduled_for, triggered_by, root_run_id
         FROM decided WHERE skip_reason IS NULL
       ON CONFLICT (automation_id, scheduled_for) DO NOTHING
       RETURNING id
     ), skipped AS (
       INSERT INTO automation_runs AS s (id, automation_id, organization_id, trigger, input, event, chain, triggered_by, root_run_id,
                                         status, error, skip_reason, skip_window, skipped_runs, started_at, finished_at)
       SELECT DISTINCT ON (automation_id, skip_reason)
              id, automation_id, organization_id, trigger, input, event, ARRAY(SELECT jsonb_array_elements_text(chain)), triggered_by, root_run_id,
              'skipped',
              replace((?::jsonb) ->> skip_reason, '{maxRunsPerMinute}', max_runs_per_minute::text),
              skip_reason, date_trunc('minute', now()), count(*) OVER (PARTITION BY automation_id, skip_reason), now(), now()
         FROM decided WHERE skip_reason IS NOT NULL
        ORDER BY automation_id, skip_reason, n
       ON CONFLICT (automation_id, skip_window, skip_reason) WHERE skip_window IS NOT NULL
       DO UPDATE SET skipped_runs = s.skipped_runs + excluded.skipped_runs, finished_at = excluded.finished_at
       RETURNING s.id, s.automation_id, s.skip_reason
     )
     SELECT d.n, coalesce(q.id, s.id) AS id, q.id IS NOT NULL AS queued, d.waiting_runs + d.nth_of_organization - 1 AS turn
       FROM decided d
       LEFT JOIN queued q ON q.id = d.id
       LEFT JOIN skipped s ON s.automation_id = d.automation_id AND s.skip_reason = d.skip_reason`,
    [
      JSON.stringify(rows),
      firstIdAt(Date.now() - RUN_RATE_WINDOW_MS),
      MAX_QUEUED_RUNS_PER_ORGANIZATION,
      MAX_RUNS_PER_CHAIN,
      MAX_QUEUED_RUNS_PER_ORGANIZATION,
      JSON.stringify(SKIP_REASON_MESSAGES),
    ],
  );
  const queued = answered.flatMap((row) => {
    const run = rows[Number(row.n)];
    if (!row.queued) return [];
    const turn = Number(row.turn);
    const data: RunJob = { runId: run.id, organizationId: run.organization_id, automationId: run.automation_id, chain: [...run.chain], turn };
    return [{ data, priority: -turn }];
  });
  if (wake === 'at-commit') await jobs.enqueueMany(em, AUTOMATION_RUNS_QUEUE, queued);
  else await jobs.enqueueAtCommit(em, queued.map((job) => ({ queue: AUTOMATION_RUNS_QUEUE, ...job })));
  const ids = new Map(answered.map((row) => [Number(row.n), row.id]));
  return rows.map((row) => ids.get(row.n) ?? null);
}

/** Drops the counters of chains that queued no run for a day: they have ended. */
export async function pruneChainCounters(em: EntityManager): Promise<void> {
  await em.execute('DELETE FROM automation_chain_runs WHERE last_queued_at < now() - make_interval(hours => ?)', [CHAIN_COUNTER_RETENTION_HOURS]);
}
