export { dataModelsModule } from './data-models-module';
export { createDataModelsProcedures } from './procedures';
export { retryPendingIndexes } from './indexes/field-index';
export { type RecordListOutput } from './records/schemas';
