import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventCause, EventDispatcher, EventEnvelope } from '../events/event-envelope';
import { invokeProcedure, type InvocationDeps } from './invoke';
import type { AnyProcedure, ProcedureContext, ProcedureRegistry } from './procedure';
import type { ProcedureSignatures } from './procedure-signatures';
import type { Principal } from './principal';

export interface InvokeWithinOptions {
  /** The context to run in; the caller's by default (a savepoint of its transaction). */
  em?: EntityManager;
  /** Who the call acts as; the caller's principal by default. */
  principal?: Principal;
  causedBy?: EventCause;
  /**
   * Where the call's events go: `ctx.include` by default. A caller that may still undo the work
   * (an automation run whose later action fails) collects them and includes them once it keeps it.
   */
  collect?(events: readonly EventEnvelope[]): void;
}

/**
 * Runs another lib's procedure inside the caller's unit of work, through the whole invocation path
 * (flag, scope, permission, input validation, the handler's own rules), as the caller unless told
 * otherwise. Its events are not persisted or published by the nested call: they join the caller's,
 * so the outboxes write them with the caller's transaction and the bus hears them once, after the
 * caller commits; a call that fails adds none. Its after-commit tasks join the caller's too: they
 * run only once the caller's transaction, which holds the nested call's writes, has committed.
 */
export async function invokeWithin<TOutput>(
  ctx: ProcedureContext,
  procedure: AnyProcedure,
  input: unknown,
  deps: InvocationDeps,
  options: InvokeWithinOptions = {},
): Promise<TOutput> {
  const collect = options.collect ?? ((events: readonly EventEnvelope[]) => ctx.include(events));
  const collecting: EventDispatcher = {
    async persist(_em, events) {
      collect(events);
      return events;
    },
    publish: () => undefined,
  };
  return invokeProcedure<TOutput>(
    procedure,
    input,
    {
      em: options.em ?? ctx.em,
      principal: options.principal ?? ctx.principal,
      correlationId: ctx.correlationId,
      ...(options.causedBy ? { causedBy: options.causedBy } : {}),
      afterCommit: (task) => ctx.afterCommit(task),
    },
    { ...deps, dispatcher: collecting },
  );
}

/** `invokeWithin` by name, typed by a lib's contracts map: the input and the answer follow the name. */
export type ProcedureCall<TMap extends ProcedureSignatures<TMap>> = <Name extends keyof TMap & string>(
  ctx: ProcedureContext,
  name: Name,
  input: TMap[Name]['input'],
  options?: InvokeWithinOptions,
) => Promise<TMap[Name]['output']>;

/** A `ProcedureCall` over the registry (found when called: it may be built after the caller's procedures). */
export function procedureCall<TMap extends ProcedureSignatures<TMap>>(
  procedures: () => ProcedureRegistry,
  invocation: () => InvocationDeps,
): ProcedureCall<TMap> {
  return (ctx, name, input, options) => invokeWithin(ctx, procedures().require(name), input, invocation(), options);
}
