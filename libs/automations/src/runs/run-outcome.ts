import { createEvent } from '@mrp/events';
import { executePreparedAtCommit, preparedStatement, sqlTextArray, type PendingEvent, type ProcedureContext } from '@mrp/platform';
import type { ActionResult } from '../definitions/automation-schemas';
import type { RunRow } from './run-rows';

/** What the runner's principal holds, and nothing else does. */
export const RUN_AUTOMATIONS = 'system.automation-runner';
/** A chain of automations triggering one another stops at this depth. */
export const MAX_CHAIN_DEPTH = 8;
/** A run whose runner died this many times is given up. */
export const MAX_RUN_ATTEMPTS = 3;

/** What recording a run's end needs of it. */
export type FinishedRun = Pick<RunRow, 'id' | 'automation_id' | 'organization_id'>;

// The ids, as an array, let the primary key find the rows whatever the plan makes of the outcomes.
const FINISH_RUNS = preparedStatement(
  `UPDATE automation_runs r SET status = f.status, error = f.error, action_results = f.results, finished_at = now(),
          started_at = coalesce(r.started_at, now())
     FROM jsonb_to_recordset($1::jsonb) AS f(id uuid, status text, error text, results jsonb)
    WHERE r.id = ANY($2::uuid[]) AND r.id = f.id`,
  { purpose: 'automation runs finished', indexes: ['automation_runs_pkey'] },
);

/**
 * How the runs of one transaction ended, recorded in one statement sent with its COMMIT (nothing
 * in it reads an outcome back); a failure emits `automation.run-failed` at once (through `emit`,
 * which names the run as its cause when the run executes).
 */
export class RunOutcomes {
  private readonly finished: Array<{ id: string; status: string; error: string | null; results: ActionResult[] }> = [];

  constructor(private readonly ctx: ProcedureContext) {}

  finish(
    run: FinishedRun,
    status: 'succeeded' | 'failed' | 'skipped',
    error: string | null,
    results: ActionResult[] = [],
    emit: (event: PendingEvent) => void = (event) => this.ctx.emit(event),
  ): void {
    this.finished.push({ id: run.id, status, error, results });
    if (status === 'failed') {
      emit(createEvent('automation.run-failed', { automationId: run.automation_id, runId: run.id, error: error ?? 'failed' }, { organizationId: run.organization_id }));
    }
  }

  /** Queues the statement for the COMMIT; call once, after the last `finish`. */
  async record(): Promise<void> {
    if (this.finished.length > 0) await executePreparedAtCommit(this.ctx.em, FINISH_RUNS, [JSON.stringify(this.finished), sqlTextArray(this.finished.map((run) => run.id))]);
  }
}
