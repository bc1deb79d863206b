import { MAX_IDEMPOTENCY_KEY_LENGTH } from '@mrp/platform';
import { IDEMPOTENCY_KEY_PATTERN } from '../public-api/idempotency';
import { describeModel, fieldSummary, type DescribedField, type DescribedModel } from './model-description';
import type { JsonSchema, ToolSchemaSpec } from './tool-schema';

/** The most records one tool call may touch: an agent pages past it, one call per 100. */
export const MAX_RECORDS_PER_CALL = 100;

export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotencyKey';

const IDEMPOTENCY_KEY_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
  pattern: IDEMPOTENCY_KEY_PATTERN,
  description:
    'Optional: a unique key (e.g. a UUID) for this change. A retry with the same key and arguments within 24 hours answers the first outcome again without writing twice',
};

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Runs a procedure as the tool call's principal, through the same invocation path as /rpc and /api/v1. */
export type InvokeProcedure = <T>(procedure: string, input: Record<string, unknown>) => Promise<T>;

/**
 * One MCP tool: a thin call of an existing procedure. Its input schema is cut from the procedure's
 * (tool-schema.ts); `run` maps the arguments (REST names) to the procedure's input, and `summary`
 * says in one line what the answer holds.
 */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** The procedure whose input schema the tool's is cut from, and which `run` calls. */
  procedure: string;
  schema: ToolSchemaSpec;
  annotations: ToolAnnotations;
  /** A write: takes an idempotency key, and its events are marked as coming through /mcp. */
  writes: boolean;
  run(invoke: InvokeProcedure, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  summary(output: Record<string, unknown>, args: Record<string, unknown>): string;
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

interface Listed {
  items: Array<Record<string, unknown>>;
  nextCursor?: string | null;
}

const pageSummary = (output: Record<string, unknown>, args: Record<string, unknown>) => {
  const { items, nextCursor } = output as unknown as Listed;
  const more = nextCursor ? '; more records follow: call again with cursor set to nextCursor' : '; this is the last page';
  return `${items.length} record${items.length === 1 ? '' : 's'} of ${String(args['model'])}${more}`;
};

const recordLine = (record: Record<string, unknown>) => `${String(record['id'])} "${String(record['title'])}"`;

const LIST_ARGUMENTS = ['model', 'filter', 'q', 'sort', 'fields', 'expand', 'cursor', 'limit'] as const;

export const MCP_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'list_models',
    title: "List the organization's models",
    description: 'The Data Models (tables) of the organization: key, name, description. Start here, then describe_model for a model\'s fields.',
    procedure: 'dataModels.list',
    schema: {},
    annotations: READ,
    writes: false,
    run: (invoke, args) => invoke('dataModels.list', args),
    summary: (output) => {
      const { items } = output as unknown as Listed;
      return `${items.length} model${items.length === 1 ? '' : 's'}: ${items.map((model) => `${String(model['key'])} (${String(model['name'])})`).join(', ')}`;
    },
  },
  {
    name: 'describe_model',
    title: 'Describe a model',
    description:
      "A model's fields (type, required, options of SELECT fields, target of RELATION fields) and the JSON Schemas of a record's data on create and on update.",
    procedure: 'dataModels.fields.list',
    schema: {},
    annotations: READ,
    writes: false,
    async run(invoke, args) {
      const key = args['model'] as string;
      const model = await invoke<DescribedModel>('dataModels.get', { key });
      const fields = await invoke<{ items: DescribedField[] }>('dataModels.fields.list', { model: key });
      return describeModel(model, fields.items);
    },
    summary: (output) => {
      const description = output as unknown as ReturnType<typeof describeModel>;
      return `Model ${description.model.key} (${description.model.name}), fields: ${fieldSummary(description)}`;
    },
  },
  {
    name: 'list_records',
    title: "List a model's records",
    description:
      'One page of records (at most 100): filter tree, text search q, sort, fields, expand of relations. Pass nextCursor back as cursor for the next page.',
    procedure: 'records.list',
    schema: { pick: LIST_ARGUMENTS },
    annotations: READ,
    writes: false,
    run: (invoke, args) => invoke('records.list', args),
    summary: pageSummary,
  },
  {
    name: 'search_records',
    title: "Search a model's records",
    description:
      'Records whose title or a text, email or URL field contains q (any case), optionally narrowed by a filter tree; one page at a time, as list_records.',
    procedure: 'records.list',
    schema: { pick: ['model', 'q', 'filter', 'fields', 'expand', 'cursor', 'limit'], require: ['q'] },
    annotations: READ,
    writes: false,
    run: (invoke, args) => invoke('records.list', args),
    summary: pageSummary,
  },
  {
    name: 'count_records',
    title: "Count a model's records",
    description:
      'How many records of a model there are, or how many a filter tree and text search q match (the records list_records would page through), counted up to a cap: past it, count is the cap and capped is true.',
    procedure: 'records.count',
    schema: { pick: ['model', 'filter', 'q'] },
    annotations: READ,
    writes: false,
    run: (invoke, args) => invoke('records.count', args),
    summary: (output, args) => {
      const { count, capped } = output as { count: number; capped: boolean };
      const matching = args['filter'] !== undefined || args['q'] !== undefined ? ' matching' : '';
      return `${capped ? 'More than ' : ''}${count.toLocaleString('en')}${matching} record${count === 1 && !capped ? '' : 's'} of ${String(args['model'])}`;
    },
  },
  {
    name: 'get_record',
    title: 'Get a record',
    description: 'One record by id, with fields and expand as in list_records. A record the key may not read is reported as not found.',
    procedure: 'records.get',
    schema: {},
    annotations: READ,
    writes: false,
    run: (invoke, args) => invoke('records.get', args),
    summary: (output) => `Record ${recordLine(output)} of ${String(output['model'])}`,
  },
  {
    name: 'create_records',
    title: 'Create records',
    description: `Creates 1 to ${MAX_RECORDS_PER_CALL} records of one model, all or none: records is [{"data": {...}}], each data including title. Send more in further calls.`,
    procedure: 'records.createMany',
    schema: { maxItems: { records: MAX_RECORDS_PER_CALL }, extra: { [IDEMPOTENCY_KEY_ARGUMENT]: IDEMPOTENCY_KEY_SCHEMA } },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    writes: true,
    run: (invoke, args) => invoke('records.createMany', args),
    summary: (output, args) => {
      const { items } = output as unknown as Listed;
      return `Created ${items.length} record${items.length === 1 ? '' : 's'} of ${String(args['model'])}: ${items.map(recordLine).join(', ')}`;
    },
  },
  {
    name: 'update_record',
    title: 'Update a record',
    description: 'Changes the given fields of a record (merge; null clears a field that is not required). expectedVersion makes it fail if the record changed since.',
    procedure: 'records.update',
    schema: { extra: { [IDEMPOTENCY_KEY_ARGUMENT]: IDEMPOTENCY_KEY_SCHEMA } },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    writes: true,
    run: (invoke, args) => invoke('records.update', args),
    summary: (output) => `Updated record ${recordLine(output)}`,
  },
  {
    name: 'delete_record',
    title: 'Delete a record',
    description: 'Moves a record to the trash (a soft delete: it can be restored; it is never purged through this tool).',
    procedure: 'records.delete',
    schema: { pick: ['id', 'expectedVersion'], extra: { [IDEMPOTENCY_KEY_ARGUMENT]: IDEMPOTENCY_KEY_SCHEMA } },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    writes: true,
    run: (invoke, args) => invoke('records.delete', { ...args, hard: false }),
    summary: (output) => `Deleted record ${String(output['id'])} (moved to the trash; it can be restored)`,
  },
];
