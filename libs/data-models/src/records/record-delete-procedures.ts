import { RecordsDeleteInput, RecordsDeleteManyInput, RecordsRestoreInput } from './record-inputs';
import { conflict, defineProcedure, preconditionFailed, withAnswerVersion } from '@mrp/platform';
import { createEvent, recordEventAliases } from '@mrp/events';
import { recordOutput, recordVersion } from './record-rows';
import { purgeRecord, restoreRecord, softDeleteRecord, softDeleteRecords } from './record-store';
import { MAX_BATCH_RECORDS, recordDeletedEvent, requireRecord, requireRecords, type CurrentModels } from './record-procedure-support';
import {
  RecordBatchDeletionSchema,
  RecordDeletionSchema,
  RecordSchema,
  type RecordBatchDeletionOutput,
  type RecordDeletionOutput,
  type RecordOutput,
} from './schemas';

/** `records.delete`, `records.deleteMany` and `records.restore`: the trash, and purging. */
export function createDeleteProcedures(models: CurrentModels) {
  const remove = defineProcedure({
    name: 'records.delete',
    summary: 'Soft-deletes a record, or purges it with hard: true (also needs records.purge)',
    scope: 'organization',
    permission: 'records.delete',
    inputPermissions: [{ permission: 'records.purge', when: 'hard=true', appliesTo: (input) => input.hard === true }],
    input: RecordsDeleteInput,
    output: RecordDeletionSchema,
    async handler(ctx, input): Promise<RecordDeletionOutput> {
      const hard = input.hard === true;
      // A purge also reaches records that are already soft-deleted.
      const record = await requireRecord(ctx, input.id, hard ? 'any' : 'live', true);
      const deleted = hard
        ? await purgeRecord(ctx.em, record.id, input.expectedVersion)
        : await softDeleteRecord(ctx.em, { id: record.id, userId: ctx.principal.userId, expectedVersion: input.expectedVersion });
      if (!deleted) throw preconditionFailed(`The record is no longer at version ${input.expectedVersion}`);
      ctx.emit(recordDeletedEvent(ctx.organizationId, record, hard));
      return { id: record.id, deleted: true, hard };
    },
  });

  const deleteMany = defineProcedure({
    name: 'records.deleteMany',
    summary: `Soft-deletes 1 to ${MAX_BATCH_RECORDS} records, all or none`,
    scope: 'organization',
    permission: 'records.delete',
    input: RecordsDeleteManyInput,
    output: RecordBatchDeletionSchema,
    async handler(ctx, input): Promise<RecordBatchDeletionOutput> {
      const records = await requireRecords(ctx, input.ids, (index) => `ids[${index}]`);
      await softDeleteRecords(
        ctx.em,
        records.map((record) => record.id),
        ctx.principal.userId,
      );
      for (const record of records) ctx.emit(recordDeletedEvent(ctx.organizationId, record, false));
      return { items: records.map((record) => ({ id: record.id, deleted: true as const, hard: false })) };
    },
  });

  const restore = defineProcedure({
    name: 'records.restore',
    summary: 'Brings back a soft-deleted record',
    scope: 'organization',
    permission: 'records.delete',
    versioned: true,
    input: RecordsRestoreInput,
    output: RecordSchema,
    async handler(ctx, input): Promise<RecordOutput> {
      const current = await requireRecord(ctx, input.id, 'any', true);
      if (!current.deleted) throw conflict('The record is not deleted');
      const { fields, fieldsVersion } = await models.fieldsOf(ctx, current);
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

  return { remove, deleteMany, restore };
}
