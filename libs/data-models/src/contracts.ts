/**
 * The static types of data-models' procedure inputs and answers, for code that calls the procedures by name
 * (the views lib through the registry, the console over /rpc): the types of the TypeBox schemas
 * the procedures declare, so each shape is written once. Types only: nothing here runs, its
 * imports are `import type` (lint), and the schema files it reads import nothing server-side.
 */
import type { Static } from '@sinclair/typebox';
import type * as FieldInputs from './fields/field-inputs';
import type * as ModelInputs from './models/model-inputs';
import type * as RecordInputs from './records/record-inputs';
import type * as ModelSchemas from './models/schemas';
import type * as RecordSchemas from './records/schemas';

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
export type { ModelCatalog } from './models/schemas';

/**
 * What each data-models procedure a door serves takes and answers, by name: the static types of
 * the input and output schemas it declares (`procedures.spec.ts` fails when they drift). A caller
 * by name (the console's `call`, a lib's `procedureCall`) gets both from the name alone.
 * `records.export` is not here: its answer is a stream that only a REST route writes.
 */
export interface DataModelsProcedures {
  'dataModels.list': { input: Static<typeof ModelInputs.DataModelsListInput>; output: Static<typeof ModelSchemas.ModelListSchema> };
  'dataModels.get': { input: Static<typeof ModelInputs.DataModelsGetInput>; output: Static<typeof ModelSchemas.ModelSchema> };
  'dataModels.create': { input: Static<typeof ModelInputs.DataModelsCreateInput>; output: Static<typeof ModelSchemas.ModelSchema> };
  'dataModels.update': { input: Static<typeof ModelInputs.DataModelsUpdateInput>; output: Static<typeof ModelSchemas.ModelSchema> };
  'dataModels.archive': { input: Static<typeof ModelInputs.DataModelsArchiveInput>; output: Static<typeof ModelSchemas.ArchivedModelSchema> };
  'dataModels.catalog': { input: Static<typeof ModelInputs.DataModelsCatalogInput>; output: Static<typeof ModelSchemas.ModelCatalogSchema> };
  'dataModels.fields.list': { input: Static<typeof FieldInputs.DataModelsFieldsListInput>; output: Static<typeof ModelSchemas.FieldListSchema> };
  'dataModels.fields.create': { input: Static<typeof FieldInputs.DataModelsFieldsCreateInput>; output: Static<typeof ModelSchemas.FieldSchema> };
  'dataModels.fields.update': { input: Static<typeof FieldInputs.DataModelsFieldsUpdateInput>; output: Static<typeof ModelSchemas.FieldSchema> };
  'dataModels.fields.archive': { input: Static<typeof FieldInputs.DataModelsFieldsArchiveInput>; output: Static<typeof ModelSchemas.FieldSchema> };
  'records.list': { input: Static<typeof RecordInputs.RecordsListInput>; output: Static<typeof RecordSchemas.RecordListSchema> };
  'records.count': { input: Static<typeof RecordInputs.RecordsCountInput>; output: Static<typeof RecordSchemas.RecordCountSchema> };
  'records.get': { input: Static<typeof RecordInputs.RecordsGetInput>; output: Static<typeof RecordSchemas.RecordSchema> };
  'records.create': { input: Static<typeof RecordInputs.RecordsCreateInput>; output: Static<typeof RecordSchemas.RecordSchema> };
  'records.createMany': { input: Static<typeof RecordInputs.RecordsCreateManyInput>; output: Static<typeof RecordSchemas.RecordBatchSchema> };
  'records.update': { input: Static<typeof RecordInputs.RecordsUpdateInput>; output: Static<typeof RecordSchemas.RecordSchema> };
  'records.updateMany': { input: Static<typeof RecordInputs.RecordsUpdateManyInput>; output: Static<typeof RecordSchemas.RecordBatchSchema> };
  'records.delete': { input: Static<typeof RecordInputs.RecordsDeleteInput>; output: Static<typeof RecordSchemas.RecordDeletionSchema> };
  'records.deleteMany': { input: Static<typeof RecordInputs.RecordsDeleteManyInput>; output: Static<typeof RecordSchemas.RecordBatchDeletionSchema> };
  'records.restore': { input: Static<typeof RecordInputs.RecordsRestoreInput>; output: Static<typeof RecordSchemas.RecordSchema> };
  'records.setAccess': { input: Static<typeof RecordInputs.RecordsSetAccessInput>; output: Static<typeof RecordSchemas.RecordAccessSchema> };
}
