import { createExportProcedure, type ExportProcedureDeps } from './export-procedure';
import { setAccessProcedure } from './record-access-procedure';
import { createCreateProcedures } from './record-create-procedures';
import { createDeleteProcedures } from './record-delete-procedures';
import { CurrentModels } from './record-procedure-support';
import { countProcedure, createGetProcedure, createListProcedure } from './record-read-procedures';
import { createUpdateProcedures } from './record-update-procedures';

export interface RecordProcedureDeps extends ExportProcedureDeps {
  /** Keys cursor signatures: the deployment's own secret (CURSOR_SECRET), so cursors cannot be forged. */
  cursorSecret: string;
}

/**
 * Every `records.*` procedure: reads (`record-read-procedures.ts`, `export-procedure.ts`), writes
 * (`record-create-`, `record-update-`, `record-delete-procedures.ts`) and row-level access
 * (`record-access-procedure.ts`); what they share is `record-procedure-support.ts`.
 */
export function createRecordProcedures({ cursorSecret, exportStatementTimeoutMs }: RecordProcedureDeps) {
  if (!cursorSecret) throw new Error('createRecordProcedures needs the deployment\'s cursorSecret');
  // Per factory, so each set of procedures (one per process in the apps) keeps its own.
  const models = new CurrentModels();
  const { create, createMany } = createCreateProcedures(models);
  const { update, updateMany } = createUpdateProcedures(models);
  const { remove, deleteMany, restore } = createDeleteProcedures(models);
  return [
    createListProcedure(cursorSecret),
    countProcedure,
    createExportProcedure({ exportStatementTimeoutMs }),
    createGetProcedure(models),
    create,
    createMany,
    update,
    updateMany,
    remove,
    deleteMany,
    restore,
    setAccessProcedure,
  ];
}
