import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@mrp/platform';
import type { RunTrigger } from '../definitions/automation-schemas';
import { CHAIN_COUNTER_RETENTION_HOURS, MAX_QUEUED_RUNS_PER_ORGANIZATION, MAX_RUNS_PER_CHAIN, RUN_RATE_WINDOW_MS, SKIP_REASON_MESSAGES } from './run-bounds';

/** The channel runners LISTEN on; a notification means "runs may be queued now". */
export const RUNS_DUE_CHANNEL = 'automation_runs_due';

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

/** Wakes the runners; inside a transaction PostgreSQL sends it at commit, and drops it on rollback. */
export async function wakeRunners(em: EntityManager): Promise<void> {
  await em.execute(`SELECT pg_notify('${RUNS_DUE_CHANNEL}', '')`);
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
 * Answered, in the order given, the id of each run: queued, or of the skipped row that counts it;
 * null for a schedule slot already queued. The runners are woken at commit by a NOTIFY in this
 * transaction unless `wake` is 'after-commit': then the caller wakes them once it committed (the
 * event outbox does, coalesced, so that record writes do not all queue on PostgreSQL's one
 * notification lock: decision 89).
 */
export async function enqueueRuns(em: EntityManager, runs: readonly QueuedRun[], wake: 'at-commit' | 'after-commit' = 'at-commit'): Promise<Array<string | null>> {
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
  const answered = await em.execute<Array<{ n: number; id: string | null }>>(
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
         FROM (SELECT DISTINCT organization_id FROM ranked WHERE trigger <> 'schedule') AS o
     ), decided AS (
       SELECT r.*, CASE
                WHEN r.trigger = 'schedule' THEN NULL
                WHEN r.caused_by_run_id IS NOT NULL AND ch.runs - r.chain_batch + r.nth_of_chain >= ?::int THEN 'chain'
                WHEN rc.runs + r.nth_of_automation > r.max_runs_per_minute THEN 'rate'
                WHEN w.runs + r.nth_of_organization > ?::int THEN 'organization-queue'
              END AS skip_reason
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
     SELECT d.n, coalesce(q.id, s.id) AS id${wake === 'at-commit' ? `, CASE WHEN q.id IS NOT NULL THEN pg_notify('${RUNS_DUE_CHANNEL}', '') END` : ''}
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
  const ids = new Map(answered.map((row) => [Number(row.n), row.id]));
  return rows.map((row) => ids.get(row.n) ?? null);
}

/** Drops the counters of chains that queued no run for a day: they have ended. */
export async function pruneChainCounters(em: EntityManager): Promise<void> {
  await em.execute('DELETE FROM automation_chain_runs WHERE last_queued_at < now() - make_interval(hours => ?)', [CHAIN_COUNTER_RETENTION_HOURS]);
}

export interface ClaimedRun {
  id: string;
  automationId: string;
  organizationId: string;
  chain: string[];
}

/**
 * Takes up to `limit` unfinished runs no live runner holds, for `leaseSeconds`: a runner that dies
 * mid-run leaves its claim to run out, and the run is taken again. SKIP LOCKED lets runners claim
 * side by side, and skips a run whose execution holds its row right now.
 *
 * Fair across organizations: the organizations with queued runs are found by skipping through the
 * (organization_id, queued_at) index (one probe each, however long one organization's backlog),
 * each offers its oldest runs, and the runs are taken in turns: an organization's first run before
 * anyone's second, counting the runs it already has in flight here (`inFlight`), up to
 * `slotsPerOrganization` of them. So one organization's backlog never makes another's run wait
 * behind it, and its slow runs never hold every slot.
 */
export async function claimDueRuns(
  em: EntityManager,
  limit: number,
  leaseSeconds: number,
  fairness: { inFlight?: ReadonlyMap<string, number>; slotsPerOrganization?: number } = {},
): Promise<ClaimedRun[]> {
  const slotsPerOrganization = fairness.slotsPerOrganization ?? limit;
  const rows = await em.execute<Array<{ id: string; automation_id: string; organization_id: string; chain: string[] }>>(
    `WITH RECURSIVE organizations AS (
       (SELECT organization_id FROM automation_runs WHERE status = 'queued' ORDER BY organization_id LIMIT 1)
       UNION ALL
       SELECT (SELECT q.organization_id FROM automation_runs q
                WHERE q.status = 'queued' AND q.organization_id > o.organization_id ORDER BY q.organization_id LIMIT 1)
         FROM organizations o WHERE o.organization_id IS NOT NULL
     ), in_flight AS (
       SELECT key::uuid AS organization_id, value::int AS runs FROM jsonb_each_text(?::jsonb)
     ), offered AS (
       SELECT c.id, c.queued_at, coalesce(f.runs, 0) + row_number() OVER (PARTITION BY o.organization_id ORDER BY c.queued_at) AS turn
         FROM organizations o
         LEFT JOIN in_flight f ON f.organization_id = o.organization_id
         CROSS JOIN LATERAL (
           SELECT q.id, q.queued_at FROM automation_runs q
            WHERE q.organization_id = o.organization_id AND q.status = 'queued' AND (q.locked_until IS NULL OR q.locked_until < now())
            ORDER BY q.queued_at
            LIMIT greatest(0, least(?::int, ?::int - coalesce(f.runs, 0)))
              FOR UPDATE SKIP LOCKED
         ) c
        WHERE o.organization_id IS NOT NULL
     )
     UPDATE automation_runs r SET locked_until = now() + make_interval(secs => ?), attempts = r.attempts + 1
      WHERE r.id IN (SELECT id FROM offered ORDER BY turn, queued_at LIMIT ?)
      RETURNING r.id, r.automation_id, r.organization_id, r.chain`,
    [JSON.stringify(Object.fromEntries(fairness.inFlight ?? [])), limit, slotsPerOrganization, leaseSeconds, limit],
  );
  return rows.map((row) => ({ id: row.id, automationId: row.automation_id, organizationId: row.organization_id, chain: row.chain }));
}
