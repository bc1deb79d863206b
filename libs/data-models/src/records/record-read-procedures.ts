import { RecordsListInput, RecordsCountInput, RecordsGetInput } from './record-inputs';
import { defineProcedure, withAnswerVersion } from '@mrp/platform';
import { RECORD_COUNT_CAP } from '../models/record-count-cap';
import { decodeCursor, encodeCursor, hasCursorReferences, invalidCursor, type CursorScope } from '../query/cursor';
import { runSql } from '../query/sql';
import { buildCountQuery, buildListQuery, cursorRowQuery, sortValueColumn, type ListQuerySpec } from './list-query';
import { parseFieldSelection } from './field-selection';
import { listedRecords } from './listed-records';
import { expandRelations, expansionVariant, parseExpansion } from './relation-expansion';
import { deletedRecordOutput, recordOutput, recordVersion, type DeletedRecordRow, type RecordRow } from './record-rows';
import { DEFAULT_PAGE_SIZE, requireRecord, TRASH_PERMISSION, type CurrentModels } from './record-procedure-support';
import { RecordCountSchema, RecordListSchema, RecordSchema, type RecordCountOutput, type RecordListOutput, type RecordOutput } from './schemas';

/** `records.list`: keyset pages of the records the caller may see, signed cursors. */
export function createListProcedure(cursorSecret: string) {
  return defineProcedure({
    name: 'records.list',
    summary: "Lists a model's records: keyset pages, sort and filter tree",
    scope: 'organization',
    permission: 'records.read',
    inputPermissions: [TRASH_PERMISSION],
    readOnly: true,
    input: RecordsListInput,
    output: RecordListSchema,
    async handler(ctx, input): Promise<RecordListOutput> {
      const { model, fields, selected, expanded, query: listed } = await listedRecords(ctx, input);
      const { sort, filter, deleted: trash } = listed;
      const scope: CursorScope = { organizationId: ctx.organizationId, modelId: model.id, sort, filter, search: input.q, deleted: trash };
      const after = input.cursor === undefined ? undefined : decodeCursor(cursorSecret, scope, input.cursor);
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      // Related titles come after the page, in one statement for all of them (expandRelations): inside
      // the list statement they cost a subquery per row, about three times as much (decision 158).
      const query: ListQuerySpec = { ...listed, expanded: undefined, after, limit: limit + 1 };
      const rows = await runSql<RecordRow & Partial<DeletedRecordRow> & Record<string, string | null>>(ctx.em, buildListQuery(query));
      // A cursor that refers to its row yields no rows once that row is no longer listed: only
      // then, tell that apart from the end of the list (a page with rows proves the row was there).
      if (rows.length === 0 && after && hasCursorReferences(after)) {
        const cursorRow = cursorRowQuery(query);
        if (cursorRow && (await runSql(ctx.em, cursorRow)).length === 0) throw invalidCursor();
      }
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const nextCursor =
        rows.length > limit && last
          ? encodeCursor(cursorSecret, scope, { values: sort.terms.map((_, index) => last[sortValueColumn(index)] ?? null), id: last.id })
          : null;
      const items = trash
        ? page.map((row) => deletedRecordOutput(row as DeletedRecordRow, model.key, fields, selected))
        : page.map((row) => recordOutput(row, model.key, fields, selected));
      if (expanded) await expandRelations(ctx.em, listed, expanded, items);
      return { items, nextCursor };
    },
  });
}

/** `records.count`: what the list would show, counted up to the cap. */
export const countProcedure = defineProcedure({
  name: 'records.count',
  summary: `Counts the records records.list would show for the same filter, q and deleted, up to ${RECORD_COUNT_CAP.toLocaleString('en')}`,
  scope: 'organization',
  permission: 'records.read',
  inputPermissions: [TRASH_PERMISSION],
  readOnly: true,
  input: RecordsCountInput,
  output: RecordCountSchema,
  async handler(ctx, input): Promise<RecordCountOutput> {
    // The list's own reading of the input and its own conditions, row-level access included.
    const { query } = await listedRecords(ctx, input);
    const [row] = await runSql<{ count: number }>(ctx.em, buildCountQuery(query, RECORD_COUNT_CAP));
    return { count: Math.min(row.count, RECORD_COUNT_CAP), capped: row.count > RECORD_COUNT_CAP };
  },
});

/** `records.get`: one record by id, with its version for the answer's ETag. */
export function createGetProcedure(models: CurrentModels) {
  return defineProcedure({
    name: 'records.get',
    summary: 'Gets one record by id',
    scope: 'organization',
    permission: 'records.read',
    readOnly: true,
    versioned: true,
    input: RecordsGetInput,
    output: RecordSchema,
    async handler(ctx, input): Promise<RecordOutput> {
      const row = await requireRecord(ctx, input.id, 'live');
      const { fields, fieldsVersion } = await models.fieldsOf(ctx, row);
      const selected = parseFieldSelection(input.fields, fields);
      const expanded = parseExpansion(input.expand, fields);
      const record = recordOutput(row, row.model_key, fields, selected);
      const version = recordVersion(row, fieldsVersion, selected);
      if (!expanded) return withAnswerVersion(record, version);
      await expandRelations(ctx.em, { organizationId: ctx.organizationId, roleIds: ctx.principal.roleIds }, expanded, [record]);
      return withAnswerVersion(record, { ...version, variant: version.variant + expansionVariant(expanded, record) });
    },
  });
}
