import { toIso } from '@mrp/platform';
import type { ActionResult, RunStatus, RunTrigger, RunView } from '../definitions/automation-schemas';

export interface RunRow {
  id: string;
  automation_id: string;
  organization_id: string;
  trigger: RunTrigger;
  status: RunStatus;
  input: unknown;
  event: { id?: string; type?: string } | null;
  chain: string[];
  triggered_by: string | null;
  attempts: number;
  admitted_at: string | Date | null;
  queued_at: string | Date;
  started_at: string | Date | null;
  finished_at: string | Date | null;
  error: string | null;
  action_results: ActionResult[];
  /** A skipped row standing for the runs over a bound in one minute: how many. */
  skipped_runs: number | null;
}

export const RUN_COLUMNS = `id, automation_id, organization_id, trigger, status, input, event, chain, triggered_by, attempts, admitted_at,
  queued_at, started_at, finished_at, error, action_results, skipped_runs`;

/** The depth of a run in a chain of automations: 1 when no automation caused it. */
export const chainDepth = (run: Pick<RunRow, 'chain'>) => run.chain.length + 1;

export function toRunView(row: RunRow): RunView {
  return {
    id: row.id,
    automationId: row.automation_id,
    trigger: row.trigger,
    status: row.status,
    input: row.input,
    eventId: row.event?.id ?? null,
    eventType: row.event?.type ?? null,
    chainDepth: chainDepth(row),
    triggeredBy: row.triggered_by,
    queuedAt: toIso(row.queued_at),
    startedAt: toIso(row.started_at),
    finishedAt: toIso(row.finished_at),
    error: row.error,
    actions: row.action_results,
    ...(row.skipped_runs === null ? {} : { skippedRuns: row.skipped_runs }),
  };
}
