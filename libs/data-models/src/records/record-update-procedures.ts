import { RecordsUpdateInput, RecordsUpdateManyInput } from './record-inputs';
import { defineProcedure, DomainError, preconditionFailed, withAnswerVersion, type ErrorDetail } from '@mrp/platform';
import { changedFieldKeys, MAX_BATCH_ERROR_DETAILS, mergePatch, titleOf, validateBatch, validateWrite, withFormulas } from './record-data';
import { recordOutput, recordVersion } from './record-rows';
import { updateRecordData, updateRecordsData } from './record-store';
import { assertRelationTargets, assertRelationTargetsOfBatch, MAX_BATCH_RECORDS, recordUpdatedEvent, requireRecord, requireRecords, type CurrentModels } from './record-procedure-support';
import { RecordBatchSchema, RecordSchema, type RecordBatchOutput, type RecordOutput } from './schemas';

/** `records.update` and `records.updateMany`: merge patches, checked against the version named. */
export function createUpdateProcedures(models: CurrentModels) {
  const update = defineProcedure({
    name: 'records.update',
    summary: 'Updates a record (merge: given keys only; null clears a non-required field)',
    scope: 'organization',
    permission: 'records.update',
    versioned: true,
    input: RecordsUpdateInput,
    output: RecordSchema,
    async handler(ctx, input): Promise<RecordOutput> {
      const current = await requireRecord(ctx, input.id, 'live', true);
      const { fields, fieldsVersion } = await models.fieldsOf(ctx, current);
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

  const updateMany = defineProcedure({
    name: 'records.updateMany',
    summary: `Updates 1 to ${MAX_BATCH_RECORDS} records of one model (merge, as a single update), all or none`,
    scope: 'organization',
    permission: 'records.update',
    input: RecordsUpdateManyInput,
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
      const { fields } = await models.fieldsOf(ctx, currents[0]);
      const patches = validateBatch(
        fields,
        input.records.map((change) => change.data),
        'update',
      );
      await assertRelationTargetsOfBatch(ctx, fields, patches);
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

  return { update, updateMany };
}
