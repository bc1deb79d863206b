import type { ProcedureContext } from '@mrp/platform';
import type { DataField } from '../models/entities';
import { reconcileFieldIndex } from './field-index';

/** Marks the field for an index build and runs the build after commit (it cannot run inside the transaction). */
export function scheduleIndexBuild(ctx: ProcedureContext, field: DataField): void {
  field.indexStatus = 'pending';
  field.indexError = null;
  runAfterCommit(ctx, field.id);
}

/** Marks the field's index for removal and drops it after commit. */
export function scheduleIndexDrop(ctx: ProcedureContext, field: DataField): void {
  field.indexed = false;
  field.indexStatus = 'dropping';
  field.indexError = null;
  runAfterCommit(ctx, field.id);
}

function runAfterCommit(ctx: ProcedureContext, fieldId: string): void {
  ctx.afterCommit(async () => {
    await reconcileFieldIndex(ctx.em, fieldId, { wait: true, logger: ctx.log });
  });
}
