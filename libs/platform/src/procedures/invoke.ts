import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, badRequest, forbidden, isDomainError, notFound, validationFailed } from '../errors/domain-error';
import { needsFlush, runInTransaction } from '../database/transaction';
import type { EventCause, EventDispatcher, EventEnvelope, EventMetadata, PendingEvent } from '../events/event-envelope';
import { newId } from '../ids/ids';
import type { Logger } from '../logging/logger';
import type { FeatureFlagStore } from '../feature-flags/feature-flag-store';
import type { AnyProcedure, ProcedureContext } from './procedure';
import type { Principal } from './principal';
import { schemaErrorDetails } from './schema';

export interface InvocationDeps {
  dispatcher: EventDispatcher;
  logger: Logger;
  flags: Pick<FeatureFlagStore, 'isEnabled'>;
}

export interface Invocation {
  /** The request's own ORM context (a fork of the global EntityManager). */
  em: EntityManager;
  principal: Principal;
  correlationId: string;
  /** The automation run doing this work, stamped on every event the call emits. */
  causedBy?: EventCause;
  /** The door's mark, stamped on every event the call emits (e.g. `{ via: 'mcp' }`). */
  eventMetadata?: EventMetadata;
  /** A door's record of the call's outcome, committed with the call (see OutcomeRecorder). */
  recorder?: OutcomeRecorder;
  /**
   * Where the call's after-commit tasks go when its transaction is not the one that commits (a
   * call nested in another's unit of work hands them to its caller); by default they run once the
   * call's own transaction committed.
   */
  afterCommit?: (task: () => Promise<void>) => void;
}

/**
 * A door's record of a call's outcome, written in the call's own transaction so that the two
 * commit or roll back together: an idempotent request's stored answer can then never exist without
 * its change, nor the change without it. With a recorder, even a read-only procedure runs in a
 * transaction.
 */
export interface OutcomeRecorder {
  /** First in the transaction, before the handler; it may throw to refuse or settle the call without running it. */
  begin(em: EntityManager): Promise<void>;
  /** The handler's result, once it and its events are written; before commit. It may throw to undo the call. */
  succeeded(em: EntityManager, output: unknown): Promise<void>;
  /**
   * The handler failed with a domain error, and its transaction rolled back (writes, events and
   * after-commit tasks gone). `em` is outside any transaction: what `failed` keeps, it commits on
   * its own. True: the failure is kept as the call's outcome, and the error is thrown. False: the
   * error is thrown as without a recorder. Not called when `begin` itself refused.
   */
  failed(em: EntityManager, error: DomainError): Promise<boolean>;
  /**
   * The transaction failed after `begin` with an error that is not the handler's domain error (a
   * write `succeeded` deferred to COMMIT failed, say); it rolled back. The recorder may throw the
   * call's real outcome instead; returning lets the error stand.
   */
  transactionFailed?(em: EntityManager, error: unknown): Promise<void>;
}

/** While its feature flag is off a procedure answers exactly as an unknown name does. */
export async function assertProcedureAvailable(procedure: AnyProcedure, flags: InvocationDeps['flags']): Promise<void> {
  if (procedure.featureFlag && !(await flags.isEnabled(procedure.featureFlag))) {
    throw notFound(`Procedure ${procedure.name}`);
  }
}

function checkProcedureAccess(procedure: AnyProcedure, principal: Principal): void {
  // To anyone but a system principal, a system procedure does not exist.
  if (procedure.scope === 'system' && principal.credential.type !== 'system') throw notFound(`Procedure ${procedure.name}`);
  if (procedure.scope === 'platform-admin' && !principal.isPlatformAdmin) {
    throw forbidden('Only platform administrators may do this');
  }
  if (procedure.scope === 'organization' && !principal.organizationId) {
    throw badRequest('This operation needs an active organization (X-Organization-Id header)');
  }
  if (procedure.permission && !principal.permissions.has(procedure.permission)) {
    throw forbidden(`Missing permission ${procedure.permission}`);
  }
}

/**
 * What needs no input: the flag, then scope and the declared permission. A door may run it before
 * it reads the request, so a caller without the permission is refused without the server reading
 * or parsing a body; invokeProcedure runs it again (a lookup or two), so no door can skip it.
 */
export async function preflightProcedure(procedure: AnyProcedure, principal: Principal, flags: InvocationDeps['flags']): Promise<void> {
  if (procedure.featureFlag) await assertProcedureAvailable(procedure, flags);
  checkProcedureAccess(procedure, principal);
}

/** Whether validating can change the input: only `default` keywords do (Ajv's useDefaults); a `$ref` may hide one. */
function schemaFillsDefaults(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(schemaFillsDefaults);
  if (schema === null || typeof schema !== 'object') return false;
  return Object.hasOwn(schema, 'default') || Object.hasOwn(schema, '$ref') || Object.values(schema).some(schemaFillsDefaults);
}

const fillsDefaults = new WeakMap<object, boolean>();

function mayFillDefaults(procedure: AnyProcedure): boolean {
  const schema: object = procedure.input;
  let fills = fillsDefaults.get(schema);
  if (fills === undefined) {
    fills = schemaFillsDefaults(schema);
    fillsDefaults.set(schema, fills);
  }
  return fills;
}

export function validateProcedureInput<T>(procedure: AnyProcedure, rawInput: unknown): T {
  // Defaults are filled in place; never mutate what the caller handed us. Without defaults nothing
  // is written, and the copy (structuredClone, the dearest step of validation) is skipped.
  const input = rawInput === undefined ? {} : mayFillDefaults(procedure) ? structuredClone(rawInput) : rawInput;
  if (!procedure.validateInput(input)) {
    throw validationFailed(schemaErrorDetails(procedure.validateInput.errors));
  }
  return input as T;
}

/**
 * The single path by which any door (/rpc, /api/v1, jobs) runs a procedure: check its flag, scope
 * and permission, validate the input, check the permissions that input needs, run the handler in a
 * transaction, persist its events with the transaction and publish them after commit.
 */
export async function invokeProcedure<TOutput>(
  procedure: AnyProcedure,
  rawInput: unknown,
  invocation: Invocation,
  deps: InvocationDeps,
): Promise<TOutput> {
  await preflightProcedure(procedure, invocation.principal, deps.flags);
  const input = validateProcedureInput(procedure, rawInput);
  for (const { permission, appliesTo } of procedure.inputPermissions ?? []) {
    if (appliesTo(input) && !invocation.principal.permissions.has(permission)) throw forbidden(`Missing permission ${permission}`);
  }
  const events: EventEnvelope[] = [];
  const afterCommitTasks: Array<() => Promise<void>> = [];
  // Made on first use: most calls never log.
  let log: Logger | undefined;
  const logger = () => (log ??= deps.logger.child({ procedure: procedure.name, correlationId: invocation.correlationId }));

  const contextFor = (em: EntityManager): ProcedureContext => ({
    em,
    principal: invocation.principal,
    organizationId: invocation.principal.organizationId,
    correlationId: invocation.correlationId,
    get log() {
      return logger();
    },
    emit: (event: PendingEvent, options?: { causedBy?: EventCause }) => {
      const causedBy = options?.causedBy ?? invocation.causedBy;
      events.push({
        id: newId(),
        occurredAt: new Date().toISOString(),
        correlationId: invocation.correlationId,
        ...event,
        ...(causedBy ? { causedBy } : {}),
        ...(invocation.eventMetadata ? { metadata: invocation.eventMetadata } : {}),
      });
    },
    include: (stamped) => {
      events.push(...stamped);
    },
    hasPermission: (permission) => invocation.principal.permissions.has(permission),
    requirePermission: (permission) => {
      if (!invocation.principal.permissions.has(permission)) throw forbidden(`Missing permission ${permission}`);
    },
    afterCommit: (task) => {
      afterCommitTasks.push(task);
    },
  });

  // The events to publish after commit: the handler's, with those derived from them while persisting.
  let toPublish: readonly EventEnvelope[] = events;
  const runHandler = async (em: EntityManager): Promise<TOutput> => {
    const value = (await procedure.handler(contextFor(em), input)) as TOutput;
    if (needsFlush(em)) await em.flush();
    if (events.length > 0) toPublish = await deps.dispatcher.persist(em, events);
    return value;
  };

  const { recorder } = invocation;
  let result: TOutput;
  let keptFailure: DomainError | undefined;
  if (recorder) {
    let begun = false;
    try {
      result = await runInTransaction(invocation.em, async (em) => {
        await recorder.begin(em);
        begun = true;
        const value = await runHandler(em);
        await recorder.succeeded(em, value);
        return value;
      });
    } catch (error) {
      if (!begun) throw error;
      // Rolled back: nothing the handler queued may be published or run.
      events.length = 0;
      toPublish = [];
      afterCommitTasks.length = 0;
      if (!isDomainError(error)) {
        await recorder.transactionFailed?.(invocation.em, error);
        throw error;
      }
      if (!(await recorder.failed(invocation.em, error))) throw error;
      keptFailure = error;
      result = undefined as TOutput;
    }
  } else if (procedure.readOnly) {
    result = (await procedure.handler(contextFor(invocation.em), input)) as TOutput;
  } else {
    result = await runInTransaction(invocation.em, runHandler);
  }
  if (keptFailure) throw keptFailure;
  if (toPublish.length > 0) deps.dispatcher.publish(toPublish);
  if (invocation.afterCommit) {
    for (const task of afterCommitTasks) invocation.afterCommit(task);
    return result;
  }
  for (const task of afterCommitTasks) {
    try {
      await task();
    } catch (error) {
      logger().error({ err: error }, 'after-commit task failed');
    }
  }
  return result;
}

export { DomainError };
