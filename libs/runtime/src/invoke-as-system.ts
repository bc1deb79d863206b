import { invokeProcedure, newId, systemPrincipal, type EventCause, type SystemPrincipalOptions } from '@mrp/platform';
import type { Runtime } from './runtime';

export interface SystemCall extends SystemPrincipalOptions {
  /** The work's name: the principal is `system:<task>` in logs, events and `created_by` columns. */
  task: string;
  /** The procedure to run, by name; usually `system`-scoped (no door serves those). */
  procedure: string;
  input?: unknown;
  /** The automation run the work belongs to, stamped on its events. */
  causedBy?: EventCause;
}

/**
 * Runs a procedure for work no person does (a scheduled task, a worker), through the one path
 * every door takes: its own ORM context, a principal named after the task holding only the
 * permissions given, a fresh correlation id, the process's dispatcher. So the work is checked,
 * runs in a transaction and emits its events like any request.
 */
export function invokeAsSystem<TOutput>(runtime: Pick<Runtime, 'orm' | 'procedures' | 'invocationDeps'>, call: SystemCall): Promise<TOutput> {
  const { task, procedure, input = {}, causedBy, ...principalOptions } = call;
  return invokeProcedure<TOutput>(
    runtime.procedures.require(procedure),
    input,
    { em: runtime.orm.em.fork(), principal: systemPrincipal(task, principalOptions), correlationId: newId(), ...(causedBy ? { causedBy } : {}) },
    runtime.invocationDeps,
  );
}
