export { dataModelsModule } from './data-models-module';
export { createDataModelsProcedures, type DataModelsDeps } from './procedures';
export { retryPendingIndexes } from './indexes/field-index';
export { DataModel, DataField, type IndexStatus } from './models/entities';
export {
  ModelSchema,
  FieldSchema,
  ModelListSchema,
  FieldListSchema,
  ArchivedModelSchema,
  type ModelOutput,
  type FieldOutput,
  type ArchivedModelOutput,
} from './models/schemas';
export {
  RecordSchema,
  RecordListSchema,
  RecordDeletionSchema,
  RecordAccessSchema,
  type RecordOutput,
  type RecordListOutput,
  type RecordDeletionOutput,
  type RecordAccessOutput,
} from './records/schemas';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './records/record-procedures';
export { MAX_CURSOR_LENGTH } from './query/cursor';
