import { Type, type Static } from '@sinclair/typebox';
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

export const RecordListSchema = listEnvelope(RecordSchema, true);
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
