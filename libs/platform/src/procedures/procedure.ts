import type { TSchema, Static } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logging/logger';
import type { EventCause, EventEnvelope, PendingEvent } from '../events/event-envelope';
import type { FeatureFlagKey } from '../feature-flags/known-flags';
import type { Principal } from './principal';
import { compileSchema } from './schema';

/**
 * - `organization`: needs an active organization; `permission` is checked against it.
 * - `user`: acts on the caller's own account (no organization needed).
 * - `platform-admin`: only platform admins (by session) may call it.
 * - `system`: work no person does (a worker recording a delivery attempt); only a system
 *   principal may call it, and no door serves it: to a caller it does not exist.
 */
export type ProcedureScope = 'organization' | 'user' | 'platform-admin' | 'system';

export interface ProcedureContext<TScope extends ProcedureScope = ProcedureScope> {
  /** Request-scoped EntityManager; inside the procedure's transaction unless it is read-only. */
  em: EntityManager;
  principal: Principal;
  organizationId: TScope extends 'organization' ? string : string | null;
  correlationId: string;
  log: Logger;
  /**
   * Queues an event; it is persisted with the transaction and published after commit. Its cause is
   * the invocation's unless given: one call doing work for several causes (automation runs executed
   * together) names each event's own.
   */
  emit(event: PendingEvent, options?: { causedBy?: EventCause }): void;
  /**
   * Queues events already stamped by calls this procedure made with a dispatcher of its own (an
   * automation run's actions): persisted with this transaction and published after commit, in order.
   */
  include(events: readonly EventEnvelope[]): void;
  hasPermission(permission: string): boolean;
  /** For a check the declaration cannot express; prefer `permission` and `inputPermissions`. */
  requirePermission(permission: string): void;
  /**
   * Work that must not run inside the transaction (e.g. `CREATE INDEX CONCURRENTLY`). Runs after
   * commit, before the call returns; a failure is logged and does not undo the committed change,
   * so the task must record its own outcome.
   */
  afterCommit(task: () => Promise<void>): void;
}

/** A permission needed only for some inputs, e.g. `records.purge` when a delete is hard. */
export interface InputPermission<TInput> {
  permission: string;
  /** The condition in words, for documents (e.g. `hard=true`). */
  when: string;
  appliesTo(input: TInput): boolean;
}

export interface ProcedureDefinition<TScope extends ProcedureScope, TInput extends TSchema, TOutput, TName extends string = string> {
  /** Dotted name, also the `/rpc/{name}` path; kept as its literal type, which a lib's contracts map is checked against. */
  name: TName;
  summary: string;
  scope: TScope;
  /** Permission required before the handler runs; null = any authenticated principal in scope. */
  permission: string | null;
  /** Further permissions that some inputs need; checked after validation, before the handler. */
  inputPermissions?: ReadonlyArray<InputPermission<Static<TInput>>>;
  /**
   * While this flag is off the procedure does not exist: every door answers as for an unknown
   * name, before authentication, so the surface cannot be detected.
   */
  featureFlag?: FeatureFlagKey;
  input: TInput;
  /** JSON Schema of the result, for the OpenAPI document. */
  output?: TSchema;
  /** Read-only procedures skip the transaction. */
  readOnly?: boolean;
  /**
   * Its answer holds a stream (an export's pages) that only a REST route writes as it reads it:
   * /rpc, which answers one JSON document, refuses to run it.
   */
  streamsAnswer?: boolean;
  /** The answer carries the version of the resource it shows (`withAnswerVersion`); doors send it as an entity tag. */
  versioned?: boolean;
  handler(ctx: ProcedureContext<TScope>, input: Static<TInput>): Promise<TOutput>;
}

export interface Procedure<TScope extends ProcedureScope = ProcedureScope, TInput extends TSchema = TSchema, TOutput = unknown, TName extends string = string>
  extends ProcedureDefinition<TScope, TInput, TOutput, TName> {
  validateInput: ValidateFunction<Static<TInput>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProcedure = Procedure<any, any, any, any>;

export function defineProcedure<TScope extends ProcedureScope, TInput extends TSchema, TOutput, TName extends string>(
  definition: ProcedureDefinition<TScope, TInput, TOutput, TName>,
): Procedure<TScope, TInput, TOutput, TName> {
  if (!/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/.test(definition.name)) {
    throw new Error(`Invalid procedure name "${definition.name}"`);
  }
  return { ...definition, validateInput: compileSchema<Static<TInput>>(definition.input) };
}

export class ProcedureRegistry {
  private readonly byName = new Map<string, AnyProcedure>();

  constructor(procedures: readonly AnyProcedure[]) {
    for (const procedure of procedures) {
      if (this.byName.has(procedure.name)) throw new Error(`Procedure ${procedure.name} is defined twice`);
      this.byName.set(procedure.name, procedure);
    }
  }

  get(name: string): AnyProcedure | undefined {
    return this.byName.get(name);
  }

  /** What a door may serve: every procedure but the system ones. */
  served(name: string): AnyProcedure | undefined {
    const procedure = this.byName.get(name);
    return procedure?.scope === 'system' ? undefined : procedure;
  }

  require(name: string): AnyProcedure {
    const procedure = this.byName.get(name);
    if (!procedure) throw new Error(`Unknown procedure ${name}`);
    return procedure;
  }

  all(): AnyProcedure[] {
    return [...this.byName.values()];
  }
}
