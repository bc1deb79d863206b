import { createEvent } from '@mrp/events';
import { executePreparedAtCommit, preparedStatement, type PendingEvent, type ProcedureContext } from '@mrp/platform';
import type { ActionResult } from '../definitions/automation-schemas';
import type { RunRow } from './run-rows';

/** What the runner's principal holds, and nothing else does. */
export const RUN_AUTOMATIONS = 'system.automation-runner';
/** A chain of automations triggering one another stops at this depth. */
export const MAX_CHAIN_DEPTH = 8;
/** A run whose runner died this many times is given up. */
export const MAX_RUN_ATTEMPTS = 3;

const FINISH_RUN = preparedStatement(
  `UPDATE automation_runs SET status = $1::text, error = $2::text, action_results = $3::jsonb, finished_at = now(),
          started_at = coalesce(started_at, now())
    WHERE id = $4::uuid`,
  { purpose: 'an automation run finished', indexes: ['automation_runs_pkey'] },
);

/**
 * Records how a run ended, with the transaction's COMMIT (nothing in it reads the outcome back);
 * a failure emits `automation.run-failed` (through `emit`, which names the run as its cause when
 * the run executes).
 */
export async function finishRun(
  ctx: ProcedureContext,
  run: RunRow,
  status: 'succeeded' | 'failed' | 'skipped',
  error: string | null,
  results: ActionResult[] = [],
  emit: (event: PendingEvent) => void = (event) => ctx.emit(event),
) {
  await executePreparedAtCommit(ctx.em, FINISH_RUN, [status, error, JSON.stringify(results), run.id]);
  if (status === 'failed') {
    emit(
      createEvent('automation.run-failed', { automationId: run.automation_id, runId: run.id, error: error ?? 'failed' }, { organizationId: run.organization_id }),
    );
  }
}

