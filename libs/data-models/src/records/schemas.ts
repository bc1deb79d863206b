import { Type, type Static } from '@sinclair/typebox';
import { RECORD_COUNT_CAP } from '../models/record-count-cap';
import { listEnvelope } from '../models/schemas';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, with Z' });

export const RecordSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'UUIDv7 (time-ordered)' }),
    model: Type.String({ description: 'The model key' }),
    title: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'Values by field key; archived fields are left out' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    createdBy: Type.String(),
    updatedBy: Type.String(),
  },
  { title: 'Record' },
);
export type RecordOutput = Static<typeof RecordSchema>;

/** The records a batch created or changed, in the order the request gave them. */
export const RecordBatchSchema = Type.Object({ items: Type.Array(RecordSchema) }, { title: 'RecordBatch' });
export type RecordBatchOutput = Static<typeof RecordBatchSchema>;

/** A record in the trash (`deleted=only`): the record as it was, and when and by whom it was deleted. */
export const DeletedRecordSchema = Type.Object(
  {
    ...RecordSchema.properties,
    deletedAt: Timestamp,
    deletedBy: Type.Union([Type.String(), Type.Null()], { description: 'Who deleted it; null for a record deleted before this was kept' }),
  },
  { title: 'DeletedRecord' },
);
export type DeletedRecordOutput = Static<typeof DeletedRecordSchema>;

const COUNT_CAP_TEXT = RECORD_COUNT_CAP.toLocaleString('en');

/** How many records a list would show: exact up to the cap, else the cap and `capped`. */
export const RecordCountSchema = Type.Object(
  {
    count: Type.Integer({
      minimum: 0,
      maximum: RECORD_COUNT_CAP,
      description: `The records the list would show the caller for the same filter, q and deleted (row-level access applied), at most ${COUNT_CAP_TEXT}`,
    }),
    capped: Type.Boolean({ description: `true: there are more than ${COUNT_CAP_TEXT}, and count says ${COUNT_CAP_TEXT}` }),
  },
  { title: 'RecordCount' },
);
export type RecordCountOutput = Static<typeof RecordCountSchema>;

/** A page of live records, or with `deleted=only` of the trash (each then a DeletedRecord). */
export const RecordListSchema = listEnvelope(Type.Union([RecordSchema, DeletedRecordSchema]), true, 'RecordList');
export type RecordListOutput = Static<typeof RecordListSchema>;

export const RecordDeletionSchema = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true), hard: Type.Boolean() },
  { title: 'RecordDeletion' },
);
export type RecordDeletionOutput = Static<typeof RecordDeletionSchema>;

export const RecordAccessSchema = Type.Object(
  { id: Type.String(), roleIds: Type.Array(Type.String({ format: 'uuid' })) },
  { title: 'RecordAccess', description: 'Roles that may see the record; empty = everyone who may read the model' },
);
export type RecordAccessOutput = Static<typeof RecordAccessSchema>;

/** The records a batch deleted, in the order the request named them. */
export const RecordBatchDeletionSchema = Type.Object({ items: Type.Array(RecordDeletionSchema) }, { title: 'RecordBatchDeletion' });
export type RecordBatchDeletionOutput = Static<typeof RecordBatchDeletionSchema>;
