import { RecordsCreateInput, RecordsCreateManyInput } from './record-inputs';
import { defineProcedure, withAnswerVersion } from '@mrp/platform';
import type { RecordModel } from '../models/model-store';
import { mergePatch, titleOf, validateBatch, validateWrite, withFormulas } from './record-data';
import { recordOutput, recordVersion } from './record-rows';
import { insertRecordIfCurrent, insertRecordsIfCurrent } from './record-store';
import { assertRelationTargets, assertRelationTargetsOfBatch, hasRelationFields, MAX_BATCH_RECORDS, recordCreatedEvent, type CurrentModels, type OrgContext } from './record-procedure-support';
import { RecordBatchSchema, RecordSchema, type RecordBatchOutput, type RecordOutput } from './schemas';

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
  await assertRelationTargetsOfBatch(ctx, fields, values);
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

/** `records.create` and `records.createMany`, against the model's current fields. */
export function createCreateProcedures(models: CurrentModels) {
  const create = defineProcedure({
    name: 'records.create',
    summary: 'Creates a record; `data` must include `title`',
    scope: 'organization',
    permission: 'records.create',
    versioned: true,
    input: RecordsCreateInput,
    output: RecordSchema,
    async handler(ctx, input): Promise<RecordOutput> {
      return models.write(ctx, input.model, 'the record was written', (model) => createRecord(ctx, model, input.data));
    },
  });

  const createMany = defineProcedure({
    name: 'records.createMany',
    summary: `Creates 1 to ${MAX_BATCH_RECORDS} records of one model, all or none; each \`data\` must include \`title\``,
    scope: 'organization',
    permission: 'records.create',
    input: RecordsCreateManyInput,
    output: RecordBatchSchema,
    async handler(ctx, input): Promise<RecordBatchOutput> {
      const items = await models.write(ctx, input.model, 'the records were written', (model) => createRecords(ctx, model, input.records));
      return { items };
    },
  });

  return { create, createMany };
}
