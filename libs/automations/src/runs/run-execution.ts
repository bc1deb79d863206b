import { Type } from '@sinclair/typebox';
import { performance } from 'node:perf_hooks';
import {
  defineProcedure,
  invokeProcedure,
  isDomainError,
  type AnyProcedure,
  type EventEnvelope,
  type InvocationDeps,
  type ProcedureContext,
  type ProcedureRegistry,
} from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { resolveMemberPrincipal, type MemberCannotAct } from '@mrp/authz';
import type { ActionResult } from '../definitions/automation-schemas';
import type { AutomationRow } from '../definitions/automation-rows';
import { runAction } from './run-actions';
import { RUN_COLUMNS, chainDepth, type RunRow } from './run-rows';

/** What the runner's principal holds, and nothing else does. */
export const RUN_AUTOMATIONS = 'system.automation-runner';
/** A chain of automations triggering one another stops at this depth. */
export const MAX_CHAIN_DEPTH = 8;
/** A run whose runner died this many times is given up. */
export const MAX_RUN_ATTEMPTS = 3;

export interface RunExecutionDeps {
  /** The registry the actions' procedures are found in (built after this lib's procedures). */
  procedures(): ProcedureRegistry;
  invocation(): InvocationDeps;
}

const RunIdInput = Type.Object({ runId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

async function lockRun(ctx: ProcedureContext, runId: string): Promise<RunRow | undefined> {
  const [run] = await ctx.em.execute<RunRow[]>(`SELECT ${RUN_COLUMNS} FROM automation_runs WHERE id = ? FOR UPDATE`, [runId]);
  return run;
}

async function finishRun(ctx: ProcedureContext, run: RunRow, status: 'succeeded' | 'failed' | 'skipped', error: string | null, results: ActionResult[] = []) {
  await ctx.em.execute(
    `UPDATE automation_runs SET status = ?, error = ?, action_results = ?::jsonb, finished_at = now(), locked_until = NULL,
            started_at = coalesce(started_at, now())
      WHERE id = ?`,
    [status, error, JSON.stringify(results), run.id],
  );
  if (status === 'failed') {
    ctx.emit(
      createEvent('automation.run-failed', { automationId: run.automation_id, runId: run.id, error: error ?? 'failed' }, { organizationId: run.organization_id }),
    );
  }
}

const CANNOT_ACT: Record<MemberCannotAct, string> = {
  unknown: 'its owner no longer exists',
  deleted: 'its owner has deleted their account',
  disabled: 'its owner is disabled',
  'not-member': 'its owner is no longer a member of the organization',
};

class ActionFailed extends Error {
  constructor(
    readonly index: number,
    override readonly cause: unknown,
  ) {
    super('action failed');
  }
}

function errorOf(error: unknown): NonNullable<ActionResult['error']> {
  if (isDomainError(error)) return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  return { code: 'internal_error', message: 'The action failed unexpectedly' };
}

/** Takes a token from the automation's bucket (refilled at max_runs_per_minute a minute) and returns the automation, locked. */
async function admitRun(ctx: ProcedureContext, automationId: string): Promise<(AutomationRow & { admitted: boolean }) | undefined> {
  const [automation] = await ctx.em.execute<Array<AutomationRow & { admitted: boolean }>>(
    `WITH bucket AS (
       SELECT id, LEAST(max_runs_per_minute, run_tokens + extract(epoch FROM clock_timestamp() - run_tokens_at) * max_runs_per_minute / 60.0) AS tokens
         FROM automations WHERE id = ? FOR UPDATE
     )
     UPDATE automations a
        SET run_tokens = CASE WHEN a.enabled AND bucket.tokens >= 1 THEN bucket.tokens - 1 ELSE bucket.tokens END,
            run_tokens_at = clock_timestamp()
       FROM bucket WHERE a.id = bucket.id
     RETURNING a.*, a.enabled AND bucket.tokens >= 1 AS admitted`,
    [automationId],
  );
  return automation;
}

function createExecuteRun(deps: RunExecutionDeps) {
  /**
   * `automations.runs.execute`: one queued run, in one transaction. It is skipped when its
   * automation is disabled or over its runs-a-minute bucket, and fails when it would be too deep a
   * chain, when its runners died too often or when its owner cannot act. Otherwise it emits
   * `automation.run-started` and runs the actions in order, each through its procedure as the owner
   * (resolved now, from live rows: never more than the owner holds at this moment), all inside one
   * savepoint, so a failing action leaves nothing of the earlier ones. The outcome, its event and
   * the actions' writes and events commit together; a runner dying midway leaves the run queued.
   * Events of the actions carry the run as their cause, so automations down the chain know their depth.
   */
  return defineProcedure({
    name: 'automations.runs.execute',
    summary: 'Runs a queued run as its automation\'s owner and records the outcome',
    scope: 'system',
    permission: RUN_AUTOMATIONS,
    input: RunIdInput,
    output: Type.Object({ status: Type.String() }),
    async handler(ctx, input) {
      const startedAt = performance.now();
      const run = await lockRun(ctx, input.runId);
      if (!run || run.status !== 'queued') return { status: run?.status ?? 'missing' };
      if (run.attempts > MAX_RUN_ATTEMPTS) {
        await finishRun(ctx, run, 'failed', `The run was interrupted ${MAX_RUN_ATTEMPTS} times (its runner stopped); it is not tried again`);
        return { status: 'failed' };
      }
      if (chainDepth(run) > MAX_CHAIN_DEPTH) {
        const message = `Stopped: this run would be automation number ${chainDepth(run)} in a chain of automations triggering one another (at most ${MAX_CHAIN_DEPTH})`;
        await finishRun(ctx, run, 'failed', message);
        return { status: 'failed' };
      }
      const automation = await admitRun(ctx, run.automation_id);
      if (!automation) return { status: 'missing' };
      if (!automation.enabled) {
        await finishRun(ctx, run, 'skipped', 'The automation was disabled before the run started');
        return { status: 'skipped' };
      }
      if (!automation.admitted) {
        await finishRun(ctx, run, 'skipped', `Rate limit: the automation runs at most ${automation.max_runs_per_minute} times a minute`);
        return { status: 'skipped' };
      }
      ctx.emit(createEvent('automation.run-started', { automationId: run.automation_id, runId: run.id, trigger: run.trigger }, { organizationId: run.organization_id }));

      const owner = await resolveMemberPrincipal(ctx.em, automation.owner_id, run.organization_id, {
        type: 'automation',
        automationId: automation.id,
        runId: run.id,
      });
      if ('cannotAct' in owner) {
        await finishRun(ctx, run, 'failed', `The automation cannot run: ${CANNOT_ACT[owner.cannotAct]}`);
        return { status: 'failed' };
      }

      const causedBy = { automationRunId: run.id, automationChain: [...run.chain, automation.id] };
      // The actions' events join the run's own: persisted (the outboxes) with its outcome, published
      // once it commits, in the order they happened; a failed run emits none of them.
      const actionEvents: EventEnvelope[] = [];
      const invocationDeps: InvocationDeps = {
        ...deps.invocation(),
        dispatcher: { persist: async (_em, events) => void actionEvents.push(...events), publish: () => undefined },
      };
      const templateContext = { input: run.input, event: run.event, now: new Date().toISOString() };
      const results: ActionResult[] = automation.actions.map((action) => ({ type: action.type, status: 'not-run' }));
      try {
        await ctx.em.transactional(async (em) => {
          for (const [index, action] of automation.actions.entries()) {
            const call = <T>(name: string, callInput: unknown) =>
              invokeProcedure<T>(deps.procedures().require(name), callInput, { em, principal: owner.principal, correlationId: ctx.correlationId, causedBy }, invocationDeps);
            try {
              results[index] = { type: action.type, status: 'succeeded', ...(await runAction(action, templateContext, call)) };
            } catch (error) {
              throw new ActionFailed(index, error);
            }
          }
        });
      } catch (error) {
        if (!(error instanceof ActionFailed)) throw error;
        if (!isDomainError(error.cause)) ctx.log.error({ err: error.cause, runId: run.id }, 'automation action failed unexpectedly');
        const failure = errorOf(error.cause);
        for (let index = 0; index < error.index; index++) results[index] = { ...results[index], status: 'rolled-back' };
        results[error.index] = { type: automation.actions[error.index].type, status: 'failed', error: failure };
        const action = automation.actions[error.index];
        await finishRun(ctx, run, 'failed', `Action ${error.index + 1} (${action.type}) failed: ${failure.message}`, results);
        return { status: 'failed' };
      }
      ctx.include(actionEvents);
      await finishRun(ctx, run, 'succeeded', null, results);
      ctx.emit(
        createEvent(
          'automation.run-succeeded',
          { automationId: automation.id, runId: run.id, durationMs: Math.round(performance.now() - startedAt) },
          { organizationId: run.organization_id },
        ),
      );
      return { status: 'succeeded' };
    },
  });
}

export function createRunExecutionProcedures(deps: RunExecutionDeps): AnyProcedure[] {
  return [createExecuteRun(deps)];
}
