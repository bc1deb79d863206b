import { Type } from '@sinclair/typebox';
import {
  conflict,
  defineProcedure,
  DomainError,
  type ErrorDetail,
  isDomainError,
  notFound,
  preconditionFailed,
  validationFailed,
  withAnswerVersion,
  type AnyProcedure,
  type ProcedureContext,
} from '@mrp/platform';
import { createEvent, recordEventAliases } from '@mrp/events';
import { rolesOfOrganization } from '@mrp/authz';
import { loadRecordModel, RECORD_COUNT_CAP, type FieldShape, type RecordModel } from '../models/model-store';
import { ModelKeyInput } from '../models/schemas';
import { RecordModelCache } from '../models/record-model-cache';
import {
  decodeCursor,
  encodeCursor,
  hasCursorReferences,
  invalidCursor,
  MAX_CURSOR_LENGTH,
  type CursorScope,
} from '../query/cursor';
import { runSql } from '../query/sql';
import { buildCountQuery, buildListQuery, cursorRowQuery, sortValueColumn, type ListQuerySpec } from './list-query';
import { FieldSelectionInput, parseFieldSelection } from './field-selection';
import { createExportProcedure, type ExportProcedureDeps } from './export-procedure';
import { LIST_SELECTION_INPUTS, listedRecords } from './listed-records';
import { ExpandInput, expandFromRows, expandRelations, expansionVariant, parseExpansion } from './relation-expansion';
import { batchDetail, batchRefusal, changedFieldKeys, MAX_BATCH_ERROR_DETAILS, mergePatch, titleOf, validateBatch, validateWrite, withFormulas } from './record-data';
import { deletedRecordOutput, recordOutput, recordVersion, type DeletedRecordRow, type RecordRow } from './record-rows';
import {
  findVisibleRecord,
  insertRecordIfCurrent,
  insertRecordsIfCurrent,
  findVisibleRecordsForUpdate,
  softDeleteRecords,
  updateRecordsData,
  purgeRecord,
  replaceRecordAccess,
  restoreRecord,
  softDeleteRecord,
  updateRecordData,
  type FoundRecord,
  type RecordState,
} from './record-store';
import { checkRelationTargets, checkRelationTargetsOfBatch } from './relation-check';
import {
  RecordAccessSchema,
  RecordBatchDeletionSchema,
  RecordBatchSchema,
  RecordCountSchema,
  RecordDeletionSchema,
  RecordListSchema,
  RecordSchema,
  type RecordAccessOutput,
  type RecordBatchDeletionOutput,
  type RecordBatchOutput,
  type RecordCountOutput,
  type RecordDeletionOutput,
  type RecordListOutput,
  type RecordOutput,
} from './schemas';

export const DEFAULT_PAGE_SIZE = 25;
/** The most records one batch write may carry. */
export const MAX_BATCH_RECORDS = 1000;
export const MAX_PAGE_SIZE = 100;

/** A fresh load that is stale by the time of the INSERT means a concurrent field change; this many tries, then 409. */
const CREATE_ATTEMPTS = 3;

export interface RecordProcedureDeps extends ExportProcedureDeps {
  /** Keys cursor signatures: the deployment's own secret (CURSOR_SECRET), so cursors cannot be forged. */
  cursorSecret: string;
}

const RecordIdInput = Type.String({ minLength: 1, maxLength: 64, description: 'The record id (a UUID)' });
const dataInput = (description: string, example: Record<string, unknown>) => Type.Record(Type.String(), Type.Unknown(), { description, examples: [example] });
/** The version a change is based on; REST fills it from If-Match. Checked in the write itself. */
const ExpectedVersionInput = Type.Integer({
  minimum: 0,
  maximum: 2147483647,
  description: 'The record version this change is based on: at another version nothing is written (precondition_failed). Versions start at 1, so 0 never matches',
});

type OrgContext = ProcedureContext<'organization'>;

/** The trash instead of the live records: a list and a count take it alike, with the same extra permission. */
const TrashInput = Type.Optional(
  Type.Literal('only', { description: 'only: list the soft-deleted records (the trash) instead, each with deletedAt and deletedBy' }),
);
const TRASH_PERMISSION = { permission: 'records.delete', when: 'deleted=only', appliesTo: (input: { deleted?: string }) => input.deleted === 'only' };

async function requireRecord(ctx: OrgContext, id: string, state: RecordState, forUpdate = false): Promise<FoundRecord> {
  const record = await findVisibleRecord(ctx.em, {
    organizationId: ctx.organizationId,
    id,
    roleIds: ctx.principal.roleIds,
    state,
    forUpdate,
  });
  if (!record) throw notFound('Record');
  return record;
}

async function assertRelationTargets(ctx: OrgContext, fields: readonly FieldShape[], values: Record<string, unknown>): Promise<void> {
  const errors = await checkRelationTargets(ctx.em, { organizationId: ctx.organizationId, roleIds: ctx.principal.roleIds }, fields, values);
  if (errors.length > 0) throw validationFailed(errors);
}

function hasRelationFields(fields: readonly FieldShape[]): boolean {
  return fields.some((field) => field.type === 'RELATION');
}

/** What the changed fields held before the update (null for a field that was empty). */
function previousValues(data: Record<string, unknown>, changedFields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(changedFields.map((key) => [key, data[key] ?? null]));
}

/**
 * Validates, checks relations, computes formulas and inserts, against one version of the model's
 * fields; null when that version is no longer current (nothing was written).
 */
async function createRecord(ctx: OrgContext, { model, fields, fieldsVersion }: RecordModel, rawData: Record<string, unknown>): Promise<RecordOutput | null> {
  const values = validateWrite(fields, rawData, 'create');
  if (hasRelationFields(fields)) await assertRelationTargets(ctx, fields, values);
  const data = withFormulas(fields, mergePatch({}, values));
  const row = await insertRecordIfCurrent(ctx.em, {
    organizationId: ctx.organizationId,
    modelId: model.id,
    fieldsVersion,
    title: titleOf(data),
    data,
    userId: ctx.principal.userId,
  });
  if (!row) return null;
  const record = withAnswerVersion(recordOutput(row, model.key, fields), recordVersion(row, fieldsVersion));
  ctx.emit(recordCreatedEvent(ctx, model.key, record));
  return record;
}

function recordCreatedEvent(ctx: OrgContext, modelKey: string, record: RecordOutput) {
  return createEvent(
    'data-models.record-created',
    { modelKey, recordId: record.id, record },
    // A new record is restricted to no role yet.
    { organizationId: ctx.organizationId, subscriptionAliases: recordEventAliases(modelKey, 'created'), recordAccess: { roleIds: [] } },
  );
}

/** The event of an update, single or batched: the record as it now is, and the changed fields' previous values. */
function recordUpdatedEvent(organizationId: string, current: FoundRecord, record: RecordOutput, changedFields: readonly string[]) {
  return createEvent(
    'data-models.record-updated',
    { modelKey: current.model_key, recordId: record.id, changedFields: [...changedFields], record, previous: previousValues(current.data, changedFields) },
    { organizationId, subscriptionAliases: recordEventAliases(current.model_key, 'updated'), recordAccess: { roleIds: current.access_role_ids } },
  );
}

/**
 * createRecord for a batch: every record validated (the model's compiled validator), the relations
 * of all of them checked at once, formulas computed per record, one INSERT; all or nothing.
 */
async function createRecords(ctx: OrgContext, { model, fields, fieldsVersion }: RecordModel, batch: ReadonlyArray<{ data: unknown }>): Promise<RecordOutput[] | null> {
  const values = validateBatch(
    fields,
    batch.map((item) => item.data),
    'create',
  );
  if (hasRelationFields(fields)) {
    const problems = await checkRelationTargetsOfBatch(ctx.em, { organizationId: ctx.organizationId, roleIds: ctx.principal.roleIds }, fields, values);
    const details = problems.flatMap((errors, index) => errors.map((error) => batchDetail(index, error)));
    if (details.length > 0) throw batchRefusal(details);
  }
  const records = values.map((value) => {
    const data = withFormulas(fields, mergePatch({}, value));
    return { title: titleOf(data), data };
  });
  const rows = await insertRecordsIfCurrent(ctx.em, {
    organizationId: ctx.organizationId,
    modelId: model.id,
    fieldsVersion,
    userId: ctx.principal.userId,
    records,
  });
  if (!rows) return null;
  const outputs = rows.map((row) => recordOutput(row, model.key, fields));
  // One event per record; the dispatcher hands all of them to each outbox at once.
  for (const record of outputs) ctx.emit(recordCreatedEvent(ctx, model.key, record));
  return outputs;
}

export function createRecordProcedures({ cursorSecret, exportStatementTimeoutMs }: RecordProcedureDeps): AnyProcedure[] {
  if (!cursorSecret) throw new Error('createRecordProcedures needs the deployment\'s cursorSecret');
  // Per factory, so each set of procedures (one per process in the apps) keeps its own.
  const models = new RecordModelCache();

  /**
   * The fields of a record's model: the cached ones when their version is the one the record was
   * read with (no round trip), else a fresh load, which the cache then keeps.
   */
  async function fieldsOf(ctx: OrgContext, record: FoundRecord): Promise<Pick<RecordModel, 'fields' | 'fieldsVersion'>> {
    const cached = models.get(ctx.organizationId, record.model_key);
    if (cached && cached.fieldsVersion === String(record.fields_version)) return cached;
    const current = await loadRecordModel(ctx.em, ctx.organizationId, record.model_key);
    models.set(ctx.organizationId, current);
    return current;
  }

  const list = defineProcedure({
    name: 'records.list',
    summary: "Lists a model's records: keyset pages, sort and filter tree",
    scope: 'organization',
    permission: 'records.read',
    inputPermissions: [TRASH_PERMISSION],
    readOnly: true,
    input: Type.Object(
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
    ),
    output: RecordListSchema,
    async handler(ctx, input): Promise<RecordListOutput> {
      const { model, fields, selected, expanded, query: listed } = await listedRecords(ctx, input);
      const { sort, filter, deleted: trash } = listed;
      const scope: CursorScope = { organizationId: ctx.organizationId, modelId: model.id, sort, filter, search: input.q, deleted: trash };
      const after = input.cursor === undefined ? undefined : decodeCursor(cursorSecret, scope, input.cursor);
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const query: ListQuerySpec = { ...listed, after, limit: limit + 1 };
      const rows = await runSql<RecordRow & Partial<DeletedRecordRow> & Record<string, string | null>>(ctx.em, buildListQuery(query));
      // A cursor that refers to its row yields no rows once that row is no longer listed: only
      // then, tell that apart from the end of the list (a page with rows proves the row was there).
      if (rows.length === 0 && after && hasCursorReferences(after)) {
        const cursorRow = cursorRowQuery(query);
        if (cursorRow && (await runSql(ctx.em, cursorRow)).length === 0) throw invalidCursor();
      }
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const nextCursor =
        rows.length > limit && last
          ? encodeCursor(cursorSecret, scope, { values: sort.terms.map((_, index) => last[sortValueColumn(index)] ?? null), id: last.id })
          : null;
      const items = trash
        ? page.map((row) => deletedRecordOutput(row as DeletedRecordRow, model.key, fields, selected))
        : page.map((row) => recordOutput(row, model.key, fields, selected));
      if (expanded) expandFromRows(expanded, page, items);
      return { items, nextCursor };
    },
  });

  const count = defineProcedure({
    name: 'records.count',
    summary: `Counts the records records.list would show for the same filter, q and deleted, up to ${RECORD_COUNT_CAP.toLocaleString('en')}`,
    scope: 'organization',
    permission: 'records.read',
    inputPermissions: [TRASH_PERMISSION],
    readOnly: true,
    input: Type.Object(
      { model: ModelKeyInput, filter: LIST_SELECTION_INPUTS.filter, q: LIST_SELECTION_INPUTS.q, deleted: TrashInput },
      { additionalProperties: false },
    ),
    output: RecordCountSchema,
    async handler(ctx, input): Promise<RecordCountOutput> {
      // The list's own reading of the input and its own conditions, row-level access included.
      const { query } = await listedRecords(ctx, input);
      const [row] = await runSql<{ count: number }>(ctx.em, buildCountQuery(query, RECORD_COUNT_CAP));
      return { count: Math.min(row.count, RECORD_COUNT_CAP), capped: row.count > RECORD_COUNT_CAP };
    },
  });

  const get = defineProcedure({
    name: 'records.get',
    summary: 'Gets one record by id',
    scope: 'organization',
    permission: 'records.read',
    readOnly: true,
    versioned: true,
    input: Type.Object(
      { id: RecordIdInput, fields: Type.Optional(FieldSelectionInput), expand: Type.Optional(ExpandInput) },
      { additionalProperties: false },
    ),
    output: RecordSchema,
    async handler(ctx, input): Promise<RecordOutput> {
      const row = await requireRecord(ctx, input.id, 'live');
      const { fields, fieldsVersion } = await fieldsOf(ctx, row);
      const selected = parseFieldSelection(input.fields, fields);
      const expanded = parseExpansion(input.expand, fields);
      const record = recordOutput(row, row.model_key, fields, selected);
      const version = recordVersion(row, fieldsVersion, selected);
      if (!expanded) return withAnswerVersion(record, version);
      await expandRelations(ctx.em, { organizationId: ctx.organizationId, roleIds: ctx.principal.roleIds }, expanded, [record]);
      return withAnswerVersion(record, { ...version, variant: version.variant + expansionVariant(expanded, record) });
    },
  });

  const create = defineProcedure({
    name: 'records.create',
    summary: 'Creates a record; `data` must include `title`',
    scope: 'organization',
    permission: 'records.create',
    versioned: true,
    input: Type.Object({ model: ModelKeyInput, data: dataInput('Values keyed by field key; must include title', { title: 'Quarterly report' }) }, { additionalProperties: false }),
    output: RecordSchema,
    async handler(ctx, input): Promise<RecordOutput> {
      const cached = models.get(ctx.organizationId, input.model);
      if (cached) {
        try {
          const record = await createRecord(ctx, cached, input.data);
          if (record) return record;
        } catch (error) {
          // Refused against definitions that may be stale: only the current ones may refuse.
          if (!isDomainError(error)) throw error;
        }
        models.delete(ctx.organizationId, input.model);
      }
      for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
        const current = await loadRecordModel(ctx.em, ctx.organizationId, input.model);
        models.set(ctx.organizationId, current);
        const record = await createRecord(ctx, current, input.data);
        if (record) return record;
      }
      throw conflict(`The fields of model "${input.model}" kept changing while the record was written; try again`);
    },
  });

  /**
   * Runs a write against the cached model, and when that version turned out stale (or refused
   * against definitions that may be stale), against fresh loads: only the current ones may refuse.
   */
  async function withCurrentModel<T>(ctx: OrgContext, modelKey: string, write: (model: RecordModel) => Promise<T | null>): Promise<T> {
    const cached = models.get(ctx.organizationId, modelKey);
    if (cached) {
      try {
        const written = await write(cached);
        if (written !== null) return written;
      } catch (error) {
        if (!isDomainError(error)) throw error;
      }
      models.delete(ctx.organizationId, modelKey);
    }
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      const current = await loadRecordModel(ctx.em, ctx.organizationId, modelKey);
      models.set(ctx.organizationId, current);
      const written = await write(current);
      if (written !== null) return written;
    }
    throw conflict(`The fields of model "${modelKey}" kept changing while the records were written; try again`);
  }

  const createMany = defineProcedure({
    name: 'records.createMany',
    summary: `Creates 1 to ${MAX_BATCH_RECORDS} records of one model, all or none; each \`data\` must include \`title\``,
    scope: 'organization',
    permission: 'records.create',
    input: Type.Object(
      {
        model: ModelKeyInput,
        records: Type.Array(
          Type.Object({ data: dataInput('Values keyed by field key; must include title', { title: 'Quarterly report' }) }, { additionalProperties: false }),
          { minItems: 1, maxItems: MAX_BATCH_RECORDS, description: 'The records to create, answered in this order' },
        ),
      },
      { additionalProperties: false },
    ),
    output: RecordBatchSchema,
    async handler(ctx, input): Promise<RecordBatchOutput> {
      const items = await withCurrentModel(ctx, input.model, (model) => createRecords(ctx, model, input.records));
      return { items };
    },
  });

  /**
   * The live records a batch names, locked, in the batch's order; one refusal names every id that
   * is repeated, or that the caller cannot see, as if missing (`records[3].id`).
   */
  async function requireRecords(ctx: OrgContext, ids: readonly string[], path: (index: number) => string, modelKey?: string): Promise<FoundRecord[]> {
    const found = await findVisibleRecordsForUpdate(ctx.em, { organizationId: ctx.organizationId, ids, roleIds: ctx.principal.roleIds, modelKey });
    const byId = new Map(found.map((record) => [record.id, record]));
    const seen = new Set<string>();
    const details: ErrorDetail[] = [];
    const records = ids.map((id, index) => {
      const record = byId.get(id.toLowerCase());
      if (!record) details.push({ field: path(index), code: 'not_found', message: 'Record not found' });
      else if (seen.has(record.id)) details.push({ field: path(index), code: 'duplicate', message: 'The record is named twice in the batch' });
      else seen.add(record.id);
      return record as FoundRecord;
    });
    if (details.length > 0) throw batchRefusal(details);
    return records;
  }

  const updateMany = defineProcedure({
    name: 'records.updateMany',
    summary: `Updates 1 to ${MAX_BATCH_RECORDS} records of one model (merge, as a single update), all or none`,
    scope: 'organization',
    permission: 'records.update',
    input: Type.Object(
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
    ),
    output: RecordBatchSchema,
    async handler(ctx, input): Promise<RecordBatchOutput> {
      const currents = await requireRecords(
        ctx,
        input.records.map((change) => change.id),
        (index) => `records[${index}].id`,
        input.model,
      );
      const stale: ErrorDetail[] = [];
      input.records.forEach((change, index) => {
        const version = currents[index].version;
        if (change.expectedVersion !== undefined && change.expectedVersion !== version) {
          stale.push({ field: `records[${index}].expectedVersion`, code: 'precondition_failed', message: `The record is no longer at version ${change.expectedVersion}` });
        }
      });
      if (stale.length > 0) {
        throw new DomainError('precondition_failed', `${stale.length} record${stale.length === 1 ? ' has' : 's have'} changed since the version named; nothing was written`, stale.slice(0, MAX_BATCH_ERROR_DETAILS));
      }
      // One model, read in one statement: one fields version for all of them.
      const { fields } = await fieldsOf(ctx, currents[0]);
      const patches = validateBatch(
        fields,
        input.records.map((change) => change.data),
        'update',
      );
      if (hasRelationFields(fields)) {
        const problems = await checkRelationTargetsOfBatch(ctx.em, { organizationId: ctx.organizationId, roleIds: ctx.principal.roleIds }, fields, patches);
        const details = problems.flatMap((errors, index) => errors.map((error) => batchDetail(index, error)));
        if (details.length > 0) throw batchRefusal(details);
      }
      const changes = currents.map((current, index) => {
        const data = withFormulas(fields, mergePatch(current.data, patches[index]));
        return { id: current.id, title: titleOf(data), data, changedFields: changedFieldKeys(fields, current.data, data) };
      });
      const rows = await updateRecordsData(ctx.em, ctx.principal.userId, changes);
      const items = rows.map((row, index) => {
        const current = currents[index];
        const { changedFields } = changes[index];
        const record = recordOutput(row, current.model_key, fields);
        ctx.emit(recordUpdatedEvent(ctx.organizationId, current, record, changedFields));
        return record;
      });
      return { items };
    },
  });

  const deleteMany = defineProcedure({
    name: 'records.deleteMany',
    summary: `Soft-deletes 1 to ${MAX_BATCH_RECORDS} records, all or none`,
    scope: 'organization',
    permission: 'records.delete',
    input: Type.Object(
      { ids: Type.Array(RecordIdInput, { minItems: 1, maxItems: MAX_BATCH_RECORDS, description: 'The records to delete; each may appear once' }) },
      { additionalProperties: false },
    ),
    output: RecordBatchDeletionSchema,
    async handler(ctx, input): Promise<RecordBatchDeletionOutput> {
      const records = await requireRecords(ctx, input.ids, (index) => `ids[${index}]`);
      await softDeleteRecords(
        ctx.em,
        records.map((record) => record.id),
        ctx.principal.userId,
      );
      for (const record of records) {
        ctx.emit(
          createEvent(
            'data-models.record-deleted',
            { modelKey: record.model_key, recordId: record.id, hard: false },
            {
              organizationId: ctx.organizationId,
              subscriptionAliases: recordEventAliases(record.model_key, 'deleted'),
              recordAccess: { roleIds: record.access_role_ids },
            },
          ),
        );
      }
      return { items: records.map((record) => ({ id: record.id, deleted: true as const, hard: false })) };
    },
  });

  const update = defineProcedure({
    name: 'records.update',
    summary: 'Updates a record (merge: given keys only; null clears a non-required field)',
    scope: 'organization',
    permission: 'records.update',
    versioned: true,
    input: Type.Object(
      {
        id: RecordIdInput,
        data: dataInput('Values to change, keyed by field key; null clears a non-required field', { title: 'Quarterly report, revised' }),
        expectedVersion: Type.Optional(ExpectedVersionInput),
      },
      { additionalProperties: false },
    ),
    output: RecordSchema,
    async handler(ctx, input): Promise<RecordOutput> {
      const current = await requireRecord(ctx, input.id, 'live', true);
      const { fields, fieldsVersion } = await fieldsOf(ctx, current);
      const patch = validateWrite(fields, input.data, 'update');
      await assertRelationTargets(ctx, fields, patch);
      const data = withFormulas(fields, mergePatch(current.data, patch));
      const changedFields = changedFieldKeys(fields, current.data, data);
      const row = await updateRecordData(ctx.em, {
        id: current.id,
        title: titleOf(data),
        data,
        userId: ctx.principal.userId,
        expectedVersion: input.expectedVersion,
      });
      if (!row) throw preconditionFailed(`The record is no longer at version ${input.expectedVersion}`);
      const record = withAnswerVersion(recordOutput(row, current.model_key, fields), recordVersion(row, fieldsVersion));
      ctx.emit(recordUpdatedEvent(ctx.organizationId, current, record, changedFields));
      return record;
    },
  });

  const remove = defineProcedure({
    name: 'records.delete',
    summary: 'Soft-deletes a record, or purges it with hard: true (also needs records.purge)',
    scope: 'organization',
    permission: 'records.delete',
    inputPermissions: [{ permission: 'records.purge', when: 'hard=true', appliesTo: (input) => input.hard === true }],
    input: Type.Object(
      {
        id: RecordIdInput,
        hard: Type.Optional(
          Type.Boolean({ default: false, description: 'true purges the record, even one already soft-deleted (also needs records.purge)' }),
        ),
        expectedVersion: Type.Optional(ExpectedVersionInput),
      },
      { additionalProperties: false },
    ),
    output: RecordDeletionSchema,
    async handler(ctx, input): Promise<RecordDeletionOutput> {
      const hard = input.hard === true;
      // A purge also reaches records that are already soft-deleted.
      const record = await requireRecord(ctx, input.id, hard ? 'any' : 'live', true);
      const deleted = hard
        ? await purgeRecord(ctx.em, record.id, input.expectedVersion)
        : await softDeleteRecord(ctx.em, { id: record.id, userId: ctx.principal.userId, expectedVersion: input.expectedVersion });
      if (!deleted) throw preconditionFailed(`The record is no longer at version ${input.expectedVersion}`);
      ctx.emit(
        createEvent(
          'data-models.record-deleted',
          { modelKey: record.model_key, recordId: record.id, hard },
          {
            organizationId: ctx.organizationId,
            subscriptionAliases: recordEventAliases(record.model_key, 'deleted'),
            recordAccess: { roleIds: record.access_role_ids },
          },
        ),
      );
      return { id: record.id, deleted: true, hard };
    },
  });

  const restore = defineProcedure({
    name: 'records.restore',
    summary: 'Brings back a soft-deleted record',
    scope: 'organization',
    permission: 'records.delete',
    versioned: true,
    input: Type.Object({ id: RecordIdInput }, { additionalProperties: false }),
    output: RecordSchema,
    async handler(ctx, input): Promise<RecordOutput> {
      const current = await requireRecord(ctx, input.id, 'any', true);
      if (!current.deleted) throw conflict('The record is not deleted');
      const { fields, fieldsVersion } = await fieldsOf(ctx, current);
      const row = await restoreRecord(ctx.em, current.id, ctx.principal.userId);
      const record = withAnswerVersion(recordOutput(row, current.model_key, fields), recordVersion(row, fieldsVersion));
      // No "restored" event type exists: subscribers see the record come back as an update.
      ctx.emit(
        createEvent(
          'data-models.record-updated',
          { modelKey: current.model_key, recordId: record.id, changedFields: [], record },
          {
            organizationId: ctx.organizationId,
            subscriptionAliases: recordEventAliases(current.model_key, 'updated'),
            recordAccess: { roleIds: current.access_role_ids },
          },
        ),
      );
      return record;
    },
  });

  const setAccess = defineProcedure({
    name: 'records.setAccess',
    summary: 'Restricts a record to the given roles ([] makes it visible to every reader of the model again)',
    scope: 'organization',
    permission: 'records.manage-access',
    input: Type.Object(
      { id: RecordIdInput, roleIds: Type.Array(Type.String({ format: 'uuid' }), { uniqueItems: true, maxItems: 100 }) },
      { additionalProperties: false },
    ),
    output: RecordAccessSchema,
    async handler(ctx, input): Promise<RecordAccessOutput> {
      const record = await requireRecord(ctx, input.id, 'live', true);
      const roleIds = input.roleIds.map((id) => id.toLowerCase());
      const known = await rolesOfOrganization(ctx.em, ctx.organizationId, roleIds);
      const unknown = roleIds.flatMap((id, index) =>
        known.has(id) ? [] : [{ field: `roleIds[${index}]`, code: 'not_found', message: 'No such role in this organization' }],
      );
      if (unknown.length > 0) throw validationFailed(unknown);
      await replaceRecordAccess(ctx.em, record.id, roleIds);
      return { id: record.id, roleIds: [...roleIds].sort() };
    },
  });

  return [list, count, createExportProcedure({ exportStatementTimeoutMs }), get, create, createMany, update, updateMany, remove, deleteMany, restore, setAccess];
}
