import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ValidateFunction } from 'ajv';
import {
  DomainError,
  compileSchema,
  databaseFailure,
  invokeProcedure,
  schemaErrorDetails,
  validationFailed,
  type EventMetadata,
  type Logger,
  type OutcomeRecorder,
  type Principal,
} from '@mrp/platform';
import type { Runtime } from '@mrp/runtime';
import { errorBody } from '../http/error-handler';
import { httpStatusFor } from '../http/error-status';
import { AnswerToReplay, idempotentOutcome } from '../public-api/idempotency';
import { IDEMPOTENCY_KEY_ARGUMENT, MCP_TOOLS, type InvokeProcedure, type ToolDefinition } from './mcp-tools';
import { toolInputSchema, type ObjectJsonSchema } from './tool-schema';

/** Every event of a change made through /mcp says so, for automations and webhook receivers. */
export const MCP_EVENT_METADATA: EventMetadata = Object.freeze({ via: 'mcp' });

/** Who calls and in which request: resolved afresh for every HTTP request, never kept between them. */
export interface McpCaller {
  principal: Principal;
  em: EntityManager;
  requestId: string;
  log: Logger;
}

/** A tool as tools/list shows it. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectJsonSchema;
  annotations: ToolDefinition['annotations'] & { title: string };
}

interface BoundTool {
  definition: ToolDefinition;
  listed: ListedTool;
  validate: ValidateFunction;
}

/** What a tools/call answers: the procedure's answer as structured content, and text for the model to read. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** A refusal as a tool error: the API's code, message and details, as /api/v1 would show them. */
export function toolError(error: DomainError): ToolResult {
  const body = { code: error.code, message: error.message, ...(error.details?.length ? { details: error.details } : {}) };
  const detailLines = (error.details ?? []).map((detail) => `\n- ${detail.field}: ${detail.message} (${detail.code})`).join('');
  return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}${detailLines}` }], structuredContent: { error: body } };
}

function toolSuccess(summary: string, output: Record<string, unknown>): ToolResult {
  // The JSON too, for clients that hand the model only text content (the protocol's advice).
  return { content: [{ type: 'text', text: summary }, { type: 'text', text: JSON.stringify(output) }], structuredContent: output };
}

/** The arrays a tool narrows (create_records's records): more than that is refused with a request to page. */
function tooManyRecords(tool: ToolDefinition, args: Record<string, unknown>): DomainError | undefined {
  for (const [name, ceiling] of Object.entries(tool.schema.maxItems ?? {})) {
    const value = args[name];
    if (Array.isArray(value) && value.length > ceiling) {
      const message = `A tool call touches at most ${ceiling} records; send these ${value.length} in calls of up to ${ceiling} each`;
      return validationFailed([{ field: name, code: 'too_many_records', message }], message);
    }
  }
  return undefined;
}

/**
 * The tools, bound once at start-up to the registry's procedures (a tool over a procedure that does
 * not take its arguments fails the start), and the one path a tool call runs: the tool's schema,
 * then the procedure through `invokeProcedure` as the caller, inside the organization's share, with
 * a write's idempotency key kept in the procedure's own transaction as /api/v1 keeps it.
 */
export class McpTools {
  readonly listed: readonly ListedTool[];
  private readonly byName: ReadonlyMap<string, BoundTool>;

  constructor(private readonly runtime: Runtime) {
    const bound = MCP_TOOLS.map((definition): BoundTool => {
      const inputSchema = toolInputSchema(runtime.procedures.require(definition.procedure), definition.schema);
      const listed: ListedTool = {
        name: definition.name,
        title: definition.title,
        description: definition.description,
        inputSchema,
        annotations: { title: definition.title, ...definition.annotations },
      };
      return { definition, listed, validate: compileSchema(inputSchema) };
    });
    this.listed = bound.map((tool) => tool.listed);
    this.byName = new Map(bound.map((tool) => [tool.definition.name, tool]));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** A tool call's result; a refusal is a tool error (isError), never a protocol error. */
  async call(caller: McpCaller, name: string, rawArgs: Record<string, unknown>): Promise<ToolResult> {
    const tool = this.byName.get(name);
    if (!tool) throw new Error(`No tool ${name}`);
    try {
      const refusal = tooManyRecords(tool.definition, rawArgs);
      if (refusal) throw refusal;
      // Validation fills defaults in place: the caller's arguments stay as sent (they are the idempotency fingerprint).
      const args = structuredClone(rawArgs);
      if (!tool.validate(args)) throw validationFailed(schemaErrorDetails(tool.validate.errors));
      const { [IDEMPOTENCY_KEY_ARGUMENT]: idempotencyKey, ...procedureArgs } = args;
      if (tool.definition.writes && typeof idempotencyKey === 'string') {
        return await this.callOnce(caller, tool.definition, procedureArgs, idempotencyKey, rawArgs);
      }
      const output = await tool.definition.run(this.invoker(caller), procedureArgs);
      return toolSuccess(tool.definition.summary(output, procedureArgs), output);
    } catch (error) {
      return toolError(this.asDomainError(caller, error));
    }
  }

  /** A domain error as it is, a database failure as /api/v1 tells it (a timeout, a busy pool); anything else logged, told as an internal error. */
  private asDomainError(caller: McpCaller, error: unknown): DomainError {
    if (error instanceof DomainError) return error;
    const failure = databaseFailure(error);
    if (failure) return failure;
    caller.log.error({ err: error }, 'tool call failed');
    return new DomainError('internal_error', 'Something went wrong on our side; the request id identifies it');
  }

  private invoker(caller: McpCaller, recorder?: OutcomeRecorder): InvokeProcedure {
    const { principal, em, requestId } = caller;
    return <T>(name: string, input: Record<string, unknown>) =>
      this.runtime.organizationShare.run(principal.organizationId, () =>
        invokeProcedure<T>(
          this.runtime.procedures.require(name),
          input,
          { em, principal, correlationId: requestId, eventMetadata: MCP_EVENT_METADATA, ...(recorder ? { recorder } : {}) },
          this.runtime.invocationDeps,
        ),
      );
  }

  /**
   * A write under an idempotency key, kept with its change and replayed for a retry of the same
   * tool with the same arguments (a kept refusal is replayed as the same tool error). The key is the
   * API key's: one namespace with its /api/v1 Idempotency-Keys, where another request under the same
   * key is an idempotency_conflict.
   */
  private async callOnce(
    caller: McpCaller,
    tool: ToolDefinition,
    args: Record<string, unknown>,
    key: string,
    sent: Record<string, unknown>,
  ): Promise<ToolResult> {
    const { credential } = caller.principal;
    if (credential.type !== 'api-key') throw new Error('/mcp authenticates by API key');
    const recorder = idempotentOutcome({
      scope: { credentialId: `api-key:${credential.apiKeyId}`, key },
      requestHash: createHash('sha256').update(JSON.stringify(['mcp', tool.name, sent])).digest('hex'),
      answerOf: (output) => ({ status: 200, headers: {}, body: output }),
      failureAnswerOf: (error) => ({ status: httpStatusFor(error.code), headers: { ...error.headers }, body: errorBody(error, caller.requestId) }),
    });
    try {
      const output = await tool.run(this.invoker(caller, recorder), args);
      return toolSuccess(tool.summary(output, args), output);
    } catch (error) {
      if (!(error instanceof AnswerToReplay)) throw error;
      const { status, body } = error.answer;
      if (status >= 400) {
        const kept = (body as ReturnType<typeof errorBody>).error;
        return toolError(new DomainError(kept.code, kept.message, kept.details));
      }
      const output = body as Record<string, unknown>;
      return toolSuccess(`${tool.summary(output, args)} (answered again: this idempotency key already ran)`, output);
    }
  }
}
