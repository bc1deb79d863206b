/**
 * The static types of data-models' procedure answers, for code that calls the procedures by name
 * (the views lib through the registry, the console over /rpc): the types of the TypeBox schemas
 * the procedures declare, so each shape is written once. Types only: nothing here runs, its
 * imports are `import type` (lint), and the schema files it reads import nothing server-side.
 */
export type {
  ArchivedModelOutput,
  FieldListOutput,
  FieldOutput,
  ModelListItemOutput,
  ModelListOutput,
  ModelOutput,
} from './models/schemas';
export type { IndexStatus } from './models/index-status';
export type {
  DeletedRecordOutput,
  RecordAccessOutput,
  RecordBatchDeletionOutput,
  RecordBatchOutput,
  RecordCountOutput,
  RecordDeletionOutput,
  RecordListOutput,
  RecordOutput,
} from './records/schemas';
