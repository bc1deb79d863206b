import type { EntityManager } from '@mikro-orm/postgresql';
import { Type } from '@sinclair/typebox';
import { performance } from 'node:perf_hooks';
import {
  defineProcedure,
  executePrepared,
  invokeWithin,
  preparedStatement,
  procedureCall,
  sqlTextArray,
  isDomainError,
  type Credential,
  type EventCause,
  type EventEnvelope,
  type InvocationDeps,
  type ProcedureContext,
  type ProcedureRegistry,
} from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { resolveMemberPrincipal, type MemberCannotAct, type MemberPrincipalResult } from '@mrp/authz';
import type { DataModelsProcedures } from '@mrp/data-models/contracts';
import type { ActionResult } from '../definitions/automation-schemas';
import type { AutomationRow } from '../definitions/automation-rows';
import { runAction } from './run-actions';
import { admitRuns } from './run-admission';
import type { RunRow } from './run-rows';
import { RUN_AUTOMATIONS, RunOutcomes } from './run-outcome';

export interface RunExecutionDeps {
  /** The registry the actions' procedures are found in (built after this lib's procedures). */
  procedures(): ProcedureRegistry;
  invocation(): InvocationDeps;
}

/** Runs executed together in one transaction at most (the runner's batch size is capped by it). */
export const MAX_RUNS_PER_EXECUTION = 32;

const RunIdsInput = Type.Object(
  { runIds: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: MAX_RUNS_PER_EXECUTION, uniqueItems: true }) },
  { additionalProperties: false },
);

/** What executing a run needs of it and of its automation (NULL columns when the automation is gone). */
interface RunToExecute extends Pick<RunRow, 'id' | 'automation_id' | 'organization_id' | 'trigger' | 'status' | 'input' | 'event' | 'chain' | 'admitted_at'> {
  automation_enabled: boolean | null;
  automation_owner_id: string | null;
  automation_actions: AutomationRow['actions'] | null;
}

// In id order, as every path that locks several runs: two executions never wait on each other crosswise.
const LOCK_RUNS = preparedStatement(
  `SELECT r.id, r.automation_id, r.organization_id, r.trigger, r.status, r.input, r.event, r.chain, r.admitted_at,
          a.enabled AS automation_enabled, a.owner_id AS automation_owner_id, a.actions AS automation_actions
     FROM automation_runs r LEFT JOIN automations a ON a.id = r.automation_id
    WHERE r.id = ANY($1::uuid[]) ORDER BY r.id FOR UPDATE OF r`,
  { purpose: 'automation runs locked, with their automations', indexes: ['automation_runs_pkey', 'automations_pkey'] },
);

/** Locks the runs and reads their automations in one round trip (with BEGIN), planned once per connection. */
async function lockRuns(ctx: ProcedureContext, runIds: readonly string[]): Promise<Map<string, RunToExecute>> {
  const runs = await executePrepared<RunToExecute>(ctx.em, LOCK_RUNS, [sqlTextArray(runIds)]);
  return new Map(runs.map((run) => [run.id, run]));
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

/**
 * The events that tell of a live record's content (its values, or, for a card, its title and
 * column: a field's value), and where their payload names the record. A deletion tells nothing
 * more than an id, and its record may be gone.
 */
const RECORD_ID_OF_EVENT: Readonly<Record<string, 'recordId' | 'cardId'>> = {
  'data-models.record-created': 'recordId',
  'data-models.record-updated': 'recordId',
  'kanban.card-created': 'cardId',
  'kanban.card-updated': 'cardId',
  'kanban.card-moved': 'cardId',
  'kanban.card-assigned': 'cardId',
};

/**
 * The record the run's event tells of, if it tells of one, with its model where the payload names
 * it (a record event's does, a card's does not).
 */
function recordOfEvent(event: RunRow['event']): { id: string; model: string | null } | null {
  const typed = event as { type?: string; payload?: Record<string, unknown> } | null;
  const property = typed?.type === undefined ? undefined : RECORD_ID_OF_EVENT[typed.type];
  if (!property) return null;
  const id = typed?.payload?.[property];
  const model = property === 'recordId' ? typed?.payload?.['modelKey'] : undefined;
  return typeof id === 'string' ? { id, model: typeof model === 'string' ? model : null } : null;
}

/** How `readableEventRecords` names a record an owner may read. */
const readableKey = (ownerId: string, recordId: string) => `${ownerId}:${recordId}`;

type RunStatusAnswer = RunRow['status'] | 'missing' | 'not-admitted';

function createExecuteRuns(deps: RunExecutionDeps) {
  // data-models' procedures by name, typed by its contracts; user-defined actions call by a name
  // known only at run time and stay untyped (`call` below).
  const readRecord = procedureCall<DataModelsProcedures>(() => deps.procedures(), () => deps.invocation());

  /**
   * One run, inside the execution's transaction. Everything it writes is undone when it fails (its
   * actions through their savepoints), so the runs executed beside it keep theirs. Its events carry
   * the run as their cause, so automations down the chain know their depth.
   */
  /**
   * The records the runs' events tell of that their owners may read, asked together: one
   * `records.list` as each owner for each model (the same permission, row-level access and trash
   * as `records.get`). Keyed `owner:record`. A record it does not confirm is read on its own in the
   * run (`records.get`), so a refusal says why exactly as it would alone.
   */
  async function readableEventRecords(ctx: ProcedureContext, runs: readonly RunToExecute[], owners: OwnerLookups): Promise<Set<string>> {
    const groups = new Map<string, { ownerId: string; run: RunToExecute; model: string; ids: Set<string> }>();
    for (const run of runs) {
      // A run that will not get as far (not queued, its automation gone) costs the read of a record, no more.
      const record = recordOfEvent(run.event);
      if (run.automation_owner_id === null || record?.model == null) continue;
      const key = `${run.organization_id}:${run.automation_owner_id}:${record.model}`;
      const group = groups.get(key) ?? { ownerId: run.automation_owner_id, run, model: record.model, ids: new Set<string>() };
      group.ids.add(record.id);
      groups.set(key, group);
    }
    const readable = new Set<string>();
    for (const { ownerId, run, model, ids } of groups.values()) {
      // One record alone is read by its run, as before.
      if (ids.size < 2) continue;
      const owner = await owners.resolve(ownerId, run.organization_id, { type: 'automation', automationId: run.automation_id, runId: run.id });
      if ('cannotAct' in owner) continue;
      try {
        const { items } = await readRecord(
          ctx,
          'records.list',
          { model, filter: { field: 'id', op: 'in', value: [...ids] }, limit: ids.size },
          { principal: owner.principal, collect: () => undefined },
        );
        for (const item of items) readable.add(readableKey(ownerId, item.id));
      } catch (error) {
        if (!isDomainError(error)) throw error;
      }
    }
    return readable;
  }

  async function executeRun(
    ctx: ProcedureContext,
    run: RunToExecute | undefined,
    owners: OwnerLookups,
    outcomes: RunOutcomes,
    readable: ReadonlySet<string>,
    alone: boolean,
  ): Promise<RunStatusAnswer> {
    const startedAt = performance.now();
    if (!run || run.status !== 'queued') return run?.status ?? 'missing';
    // Admitted runs only (automations.runs.admit); one disabled since is skipped.
    if (!run.admitted_at) return 'not-admitted';
    if (run.automation_enabled === null || run.automation_owner_id === null || run.automation_actions === null) return 'missing';
    const automation = { id: run.automation_id, enabled: run.automation_enabled, owner_id: run.automation_owner_id, actions: run.automation_actions };
    const causedBy: EventCause = { automationRunId: run.id, automationChain: [...run.chain, automation.id] };
    const emit = (event: Parameters<ProcedureContext['emit']>[0]) => ctx.emit(event, { causedBy });
    if (!automation.enabled) {
      outcomes.finish(run, 'skipped', 'The automation was disabled before the run started', [], emit);
      return 'skipped';
    }
    emit(createEvent('automation.run-started', { automationId: run.automation_id, runId: run.id, trigger: run.trigger }, { organizationId: run.organization_id }));

    const owner = await owners.resolve(automation.owner_id, run.organization_id, { type: 'automation', automationId: automation.id, runId: run.id });
    if ('cannotAct' in owner) {
      outcomes.finish(run, 'failed', `The automation cannot run: ${CANNOT_ACT[owner.cannotAct]}`, [], emit);
      return 'failed';
    }

    // The actions' events join the run's own: persisted (the outboxes) with its outcome, published
    // once it commits, in the order they happened; a failed run emits none of them.
    const actionEvents: EventEnvelope[] = [];
    const collect = (events: readonly EventEnvelope[]) => void actionEvents.push(...events);
    // A record event's payload is the record: the owner must be able to read it now, or its
    // templates would hand them what records.read and row-level access keep from them.
    const record = recordOfEvent(run.event);
    if (record && !readable.has(readableKey(automation.owner_id, record.id))) {
      try {
        await readRecord(ctx, 'records.get', { id: record.id }, { principal: owner.principal, collect });
      } catch (error) {
        if (!isDomainError(error)) throw error;
        outcomes.finish(run, 'failed', `The automation cannot run: its owner cannot read the record the event is about (${error.message})`, [], emit);
        return 'failed';
      }
    }
    const templateContext = { input: run.input, event: run.event, now: new Date().toISOString() };
    const results: ActionResult[] = automation.actions.map((action) => ({ type: action.type, status: 'not-run' }));
    const runActions = async (em: EntityManager) => {
      for (const [index, action] of automation.actions.entries()) {
        const call = <T>(name: string, callInput: unknown) =>
          invokeWithin<T>(ctx, deps.procedures().require(name), callInput, deps.invocation(), { em, principal: owner.principal, causedBy, collect });
        try {
          results[index] = { type: action.type, status: 'succeeded', ...(await runAction(action, templateContext, call)) };
        } catch (error) {
          throw new ActionFailed(index, error);
        }
      }
    };
    try {
      // An action writes through one procedure at most, which undoes its own work when it fails
      // (a savepoint of the run's transaction); so only several actions need one savepoint more,
      // for a later one's failure to undo the earlier ones.
      if (automation.actions.length === 1) await runActions(ctx.em);
      else await ctx.em.transactional(runActions);
    } catch (error) {
      if (!(error instanceof ActionFailed)) throw error;
      // Executed beside other runs, an unexpected failure (a deadlock with another batch's locks, a
      // lost connection) fails the whole execution: the runner then executes each run alone, where it
      // meets only what it would have met alone.
      if (!isDomainError(error.cause) && !alone) throw error.cause;
      if (!isDomainError(error.cause)) ctx.log.error({ err: error.cause, runId: run.id }, 'automation action failed unexpectedly');
      const failure = errorOf(error.cause);
      for (let index = 0; index < error.index; index++) results[index] = { ...results[index], status: 'rolled-back' };
      results[error.index] = { type: automation.actions[error.index].type, status: 'failed', error: failure };
      const action = automation.actions[error.index];
      outcomes.finish(run, 'failed', `Action ${error.index + 1} (${action.type}) failed: ${failure.message}`, results, emit);
      return 'failed';
    }
    ctx.include(actionEvents);
    outcomes.finish(run, 'succeeded', null, results, emit);
    emit(
      createEvent(
        'automation.run-succeeded',
        { automationId: automation.id, runId: run.id, durationMs: Math.round(performance.now() - startedAt) },
        { organizationId: run.organization_id },
      ),
    );
    return 'succeeded';
  }

  /**
   * `automations.runs.execute`: admitted runs, in one transaction (the runner gives it several of
   * one organization when they wait; decision 163). Each is skipped when its automation was disabled
   * since, and fails when its owner cannot act. Otherwise it emits `automation.run-started` and runs
   * the actions in order, each through its procedure as the owner (resolved in this transaction,
   * from live rows: never more than the owner holds at this moment), so that a failing action leaves
   * nothing of the earlier ones. The outcomes, their events and the actions' writes and events
   * commit together; a runner dying midway leaves the runs queued.
   */
  return defineProcedure({
    name: 'automations.runs.execute',
    summary: 'Runs queued runs as their automations\' owners and records the outcomes',
    scope: 'system',
    permission: RUN_AUTOMATIONS,
    input: RunIdsInput,
    output: Type.Object({ runs: Type.Array(Type.Object({ runId: Type.String(), status: Type.String() })) }),
    async handler(ctx, input) {
      const runs = await lockRuns(ctx, input.runIds);
      const owners = new OwnerLookups(ctx.em);
      const outcomes = new RunOutcomes(ctx);
      const readable = await readableEventRecords(ctx, [...runs.values()], owners);
      const statuses: Array<{ runId: string; status: string }> = [];
      for (const runId of input.runIds) statuses.push({ runId, status: await executeRun(ctx, runs.get(runId), owners, outcomes, readable, input.runIds.length === 1) });
      await outcomes.record();
      return { runs: statuses };
    },
  });
}

/**
 * The owners of the runs of one execution, each looked up once, from live rows, when its first run
 * needs it: the runs follow one another within milliseconds in one transaction, and none of their
 * actions can change a membership or a role. Each run still acts with a credential of its own.
 */
class OwnerLookups {
  private readonly looked = new Map<string, Promise<MemberPrincipalResult>>();

  constructor(private readonly em: EntityManager) {}

  async resolve(userId: string, organizationId: string, credential: Credential): Promise<MemberPrincipalResult> {
    const key = `${organizationId}:${userId}`;
    let lookup = this.looked.get(key);
    if (!lookup) {
      lookup = resolveMemberPrincipal(this.em, userId, organizationId, credential);
      this.looked.set(key, lookup);
      return lookup;
    }
    const found = await lookup;
    return 'cannotAct' in found ? found : { principal: { ...found.principal, credential } };
  }
}

export function createRunExecutionProcedures(deps: RunExecutionDeps) {
  return [admitRuns, createExecuteRuns(deps)];
}
