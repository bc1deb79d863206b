import { Type } from '@sinclair/typebox';
import { defineProcedure } from '@mrp/platform';
import { reconcileFieldIndex } from './field-index';

/** What the `retry-field-indexes` task's principal holds, and nothing else does. */
export const RETRY_FIELD_INDEXES = 'system.retry-field-indexes';

/**
 * The `retry-field-indexes` task: finishes the index builds and drops that a crash interrupted
 * (fields left `pending` or `dropping`). CREATE INDEX CONCURRENTLY cannot run in a transaction,
 * so the procedure runs without one (`readOnly`): each field is settled on its own session, under
 * the field's advisory lock, and records its own outcome on the field. A field another session is
 * working on is skipped, not waited for. Returns how many fields it settled.
 */
export const retryIndexes = defineProcedure({
  name: 'dataModels.fields.retryIndexes',
  summary: 'Finish the field index builds and drops that were interrupted',
  scope: 'system',
  permission: RETRY_FIELD_INDEXES,
  readOnly: true,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ processed: Type.Integer({ minimum: 0 }) }),
  async handler(ctx) {
    const rows = await ctx.em.execute<Array<{ id: string }>>(
      `SELECT id FROM data_fields WHERE index_status IN ('pending', 'dropping') ORDER BY updated_at`,
    );
    let processed = 0;
    for (const { id } of rows) {
      const outcome = await reconcileFieldIndex(ctx.em, id, { wait: false, logger: ctx.log });
      if (outcome !== 'busy' && outcome !== 'nothing-to-do') processed += 1;
    }
    return { processed };
  },
});
