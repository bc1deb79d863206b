import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@mrp/platform';
import type { RunTrigger } from '../definitions/automation-schemas';

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
  scheduledFor?: Date;
  triggeredBy?: string;
}

/** Wakes the runners; inside a transaction PostgreSQL sends it at commit, and drops it on rollback. */
export async function wakeRunners(em: EntityManager): Promise<void> {
  await em.execute(`SELECT pg_notify('${RUNS_DUE_CHANNEL}', '')`);
}

/**
 * Queues runs in the caller's transaction. A schedule slot already queued is skipped: returned are
 * the ids of the runs actually queued. The runners are woken at commit by a NOTIFY in this
 * transaction unless `wake` is 'after-commit': then the caller wakes them once it committed (the
 * event outbox does, coalesced, so that record writes do not all queue on PostgreSQL's one
 * notification lock: decision 89).
 */
export async function enqueueRuns(em: EntityManager, runs: readonly QueuedRun[], wake: 'at-commit' | 'after-commit' = 'at-commit'): Promise<string[]> {
  if (runs.length === 0) return [];
  const rows = runs.map((run) => ({
    id: newId(),
    automation_id: run.automationId,
    organization_id: run.organizationId,
    trigger: run.trigger,
    input: run.input ?? {},
    event: run.event ?? null,
    chain: run.chain ?? [],
    scheduled_for: run.scheduledFor?.toISOString() ?? null,
    triggered_by: run.triggeredBy ?? null,
  }));
  const queued = await em.execute<Array<{ id: string }>>(
    `WITH queued AS (
       INSERT INTO automation_runs (id, automation_id, organization_id, trigger, input, event, chain, scheduled_for, triggered_by)
       SELECT r.id, r.automation_id, r.organization_id, r.trigger, r.input, r.event,
              ARRAY(SELECT jsonb_array_elements_text(r.chain)), r.scheduled_for, r.triggered_by
         FROM jsonb_to_recordset(?::jsonb) AS r(id uuid, automation_id uuid, organization_id uuid, trigger text, input jsonb,
                                               event jsonb, chain jsonb, scheduled_for timestamptz, triggered_by text)
       -- An event run only for an automation that still takes events: the outbox's routes may be a change behind.
       JOIN automations a ON a.id = r.automation_id AND (r.trigger <> 'event' OR (a.enabled AND a.trigger_type = 'event'))
       ON CONFLICT (automation_id, scheduled_for) DO NOTHING
       RETURNING id
     )
     SELECT queued.id${wake === 'at-commit' ? `, pg_notify('${RUNS_DUE_CHANNEL}', '')` : ''} FROM queued`,
    [JSON.stringify(rows)],
  );
  return queued.map((row) => row.id);
}

export interface ClaimedRun {
  id: string;
  automationId: string;
  chain: string[];
}

/**
 * Takes up to `limit` unfinished runs no live runner holds, for `leaseSeconds`: a runner that dies
 * mid-run leaves its claim to run out, and the run is taken again. SKIP LOCKED lets runners claim
 * side by side, and skips a run whose execution holds its row right now.
 */
export async function claimDueRuns(em: EntityManager, limit: number, leaseSeconds: number): Promise<ClaimedRun[]> {
  const rows = await em.execute<Array<{ id: string; automation_id: string; chain: string[] }>>(
    `UPDATE automation_runs r SET locked_until = now() + make_interval(secs => ?), attempts = r.attempts + 1
      WHERE r.id IN (
        SELECT id FROM automation_runs
         WHERE status = 'queued' AND (locked_until IS NULL OR locked_until < now())
         ORDER BY queued_at
         LIMIT ?
           FOR UPDATE SKIP LOCKED)
      RETURNING r.id, r.automation_id, r.chain`,
    [leaseSeconds, limit],
  );
  return rows.map((row) => ({ id: row.id, automationId: row.automation_id, chain: row.chain }));
}
