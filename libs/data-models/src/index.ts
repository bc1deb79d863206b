export { dataModelsModule } from './data-models-module';
export { createDataModelsProcedures } from './procedures';
export { type RecordListOutput } from './records/schemas';
export { type ModelCatalog } from './models/catalog-procedure';
export { recordRowAccessRoles } from './records/row-access-roles';
export { csvErrorTrailer, csvHeader } from './records/export-csv';
export { EXPORT_FORMATS, type ExportFormat, type RecordExport } from './records/export-procedure';
