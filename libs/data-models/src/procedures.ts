import type { AnyProcedure } from '@mrp/platform';
import { createFieldProcedures } from './fields/field-procedures';
import { retryIndexes } from './indexes/retry-indexes-procedure';
import { createModelProcedures } from './models/model-procedures';
import { createRecordProcedures, type RecordProcedureDeps } from './records/record-procedures';

export type DataModelsDeps = RecordProcedureDeps;

/**
 * Every procedure of the Data Models engine: `dataModels.*`, `dataModels.fields.*` and `records.*`,
 * with the system procedure of the `retry-field-indexes` task.
 */
export function createDataModelsProcedures(deps: DataModelsDeps): AnyProcedure[] {
  return [...createModelProcedures(), ...createFieldProcedures(), retryIndexes, ...createRecordProcedures(deps)];
}
