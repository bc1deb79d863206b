import { createFieldProcedures } from './fields/field-procedures';
import { retryIndexes } from './indexes/retry-indexes-procedure';
import { modelCatalogProcedure } from './models/catalog-procedure';
import { createModelProcedures } from './models/model-procedures';
import { createRecordProcedures, type RecordProcedureDeps } from './records/record-procedures';
import { createSendDueReminders, type ReminderProcedureDeps } from './reminders/send-due-reminders-procedure';

export type DataModelsDeps = RecordProcedureDeps & ReminderProcedureDeps;

/**
 * Every procedure of the Data Models engine: `dataModels.*`, `dataModels.fields.*` and `records.*`,
 * with the system procedures of the `retry-field-indexes` and `send-calendar-reminders` tasks.
 */
export function createDataModelsProcedures(deps: DataModelsDeps) {
  return [
    ...createModelProcedures(),
    modelCatalogProcedure,
    ...createFieldProcedures(),
    retryIndexes,
    ...createRecordProcedures(deps),
    createSendDueReminders(deps),
  ];
}
