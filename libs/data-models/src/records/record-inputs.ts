import { Type } from '@sinclair/typebox';
import { DEFAULT_SORT, DEFAULT_TRASH_SORT, MAX_CURSOR_LENGTH, MAX_SORT_TERMS, SEARCH_MAX_LENGTH } from '../query/query-limits';
import { ModelKeyInput } from '../models/schemas';

/**
 * The input schemas of the `records.*` procedures and their parts. Their static types are the
 * inputs of data-models' contracts (decision 155), so this file imports only TypeBox and files
 * that import nothing server-side.
 */

export const DEFAULT_PAGE_SIZE = 25;
/** The most records one batch write may carry. */
export const MAX_BATCH_RECORDS = 1000;
export const MAX_PAGE_SIZE = 100;

export const RecordIdInput = Type.String({ minLength: 1, maxLength: 64, description: 'The record id (a UUID)' });
export const dataInput = (description: string, example: Record<string, unknown>) =>
  Type.Record(Type.String(), Type.Unknown(), { description, examples: [example] });
/** The version a change is based on; REST fills it from If-Match. Checked in the write itself. */
export const ExpectedVersionInput = Type.Integer({
  minimum: 0,
  maximum: 2147483647,
  description: 'The record version this change is based on: at another version nothing is written (precondition_failed). Versions start at 1, so 0 never matches',
});

/** The trash instead of the live records: a list and a count take it alike, with the same extra permission. */
export const TrashInput = Type.Optional(
  Type.Literal('only', { description: 'only: list the soft-deleted records (the trash) instead, each with deletedAt and deletedBy' }),
);

/** The `fields` input of the record reads: which keys of `data` to answer with. */
export const FieldSelectionInput = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'Comma-separated field keys, e.g. title,amount: the answer carries only these keys of data (an unknown key is a 400)',
});

/** The `expand` input of the record reads: which relation fields answer titles beside the ids. */
export const ExpandInput = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'Comma-separated keys of RELATION fields: each related id becomes {"id","title"}, or {"id"} alone for a record the caller cannot read ' +
    '(restricted, deleted or missing); any other key is a 400',
});

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What a list and an export both take: which records, in which order, with which fields. */
export const LIST_SELECTION_INPUTS = {
  sort: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: `Up to ${MAX_SORT_TERMS} comma-separated keys: createdAt, updatedAt, title or a field key (and deletedAt with deleted=only); prefix - for descending. Default ${DEFAULT_SORT} (${DEFAULT_TRASH_SORT} with deleted=only)`,
    }),
  ),
  // An object, never its JSON text: the REST door parses the query parameter's text once.
  filter: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'Filter tree, e.g. {"field":"status","op":"eq","value":"open"}, with and/or/not nodes; at most 100 nodes, depth 8, 4000 characters of condition values in all',
      },
    ),
  ),
  fields: Type.Optional(FieldSelectionInput),
  expand: Type.Optional(ExpandInput),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: SEARCH_MAX_LENGTH,
      description: 'Search: records whose title or a text, email or URL field contains this text, in any case (% and _ are literal)',
    }),
  ),
};

/** `records.list` */
export const RecordsListInput = Type.Object(
  {
    model: ModelKeyInput,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Page size' })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, description: 'Opaque cursor from the previous page (its nextCursor)' }),
    ),
    ...LIST_SELECTION_INPUTS,
    deleted: TrashInput,
  },
  { additionalProperties: false },
);

/** `records.count` */
export const RecordsCountInput = Type.Object(
  { model: ModelKeyInput, filter: LIST_SELECTION_INPUTS.filter, q: LIST_SELECTION_INPUTS.q, deleted: TrashInput },
  { additionalProperties: false },
);

/** `records.get` */
export const RecordsGetInput = Type.Object(
  { id: RecordIdInput, fields: Type.Optional(FieldSelectionInput), expand: Type.Optional(ExpandInput) },
  { additionalProperties: false },
);

/** `records.export` */
export const RecordsExportInput = Type.Object(
  {
    model: ModelKeyInput,
    format: Type.Optional(
      Type.Unsafe<ExportFormat>({
        type: 'string',
        enum: [...EXPORT_FORMATS],
        default: 'csv',
        description: 'csv: RFC 4180 with a header row; ndjson: one record per line, as the list answers it',
      }),
    ),
    ...LIST_SELECTION_INPUTS,
  },
  { additionalProperties: false },
);

/** `records.create` */
export const RecordsCreateInput = Type.Object({ model: ModelKeyInput, data: dataInput('Values keyed by field key; must include title', { title: 'Quarterly report' }) }, { additionalProperties: false });

/** `records.createMany` */
export const RecordsCreateManyInput = Type.Object(
  {
    model: ModelKeyInput,
    records: Type.Array(
      Type.Object({ data: dataInput('Values keyed by field key; must include title', { title: 'Quarterly report' }) }, { additionalProperties: false }),
      { minItems: 1, maxItems: MAX_BATCH_RECORDS, description: 'The records to create, answered in this order' },
    ),
  },
  { additionalProperties: false },
);

/** `records.update` */
export const RecordsUpdateInput = Type.Object(
  {
    id: RecordIdInput,
    data: dataInput('Values to change, keyed by field key; null clears a non-required field', { title: 'Quarterly report, revised' }),
    expectedVersion: Type.Optional(ExpectedVersionInput),
  },
  { additionalProperties: false },
);

/** `records.updateMany` */
export const RecordsUpdateManyInput = Type.Object(
  {
    model: ModelKeyInput,
    records: Type.Array(
      Type.Object(
        {
          id: RecordIdInput,
          data: dataInput('Values to change, keyed by field key; null clears a non-required field', { title: 'Quarterly report, revised' }),
          expectedVersion: Type.Optional(ExpectedVersionInput),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_BATCH_RECORDS, description: 'The changes, answered in this order; a record may appear once' },
    ),
  },
  { additionalProperties: false },
);

/** `records.delete` */
export const RecordsDeleteInput = Type.Object(
  {
    id: RecordIdInput,
    hard: Type.Optional(
      Type.Boolean({ default: false, description: 'true purges the record, even one already soft-deleted (also needs records.purge)' }),
    ),
    expectedVersion: Type.Optional(ExpectedVersionInput),
  },
  { additionalProperties: false },
);

/** `records.deleteMany` */
export const RecordsDeleteManyInput = Type.Object(
  { ids: Type.Array(RecordIdInput, { minItems: 1, maxItems: MAX_BATCH_RECORDS, description: 'The records to delete; each may appear once' }) },
  { additionalProperties: false },
);

/** `records.restore` */
export const RecordsRestoreInput = Type.Object({ id: RecordIdInput }, { additionalProperties: false });

/** `records.setAccess` */
export const RecordsSetAccessInput = Type.Object(
  { id: RecordIdInput, roleIds: Type.Array(Type.String({ format: 'uuid' }), { uniqueItems: true, maxItems: 100 }) },
  { additionalProperties: false },
);
