import { conflict, defineProcedure, validationFailed, type ProcedureContext } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { modelFields, requireFieldOfType, selectOptions, type ModelCall, type ModelField, type SelectOption } from '../model-calls';
import { ColumnsCreateInput, ColumnsDeleteInput, ColumnsReorderInput, ColumnsUpdateInput } from './board-inputs';
import { requireBoard, type BoardRow } from './board-rows';
import { ColumnListSchema } from './board-schemas';

type OrgContext = ProcedureContext<'organization'>;

/** Cards moved out of a deleted column per round. */
const MOVE_PAGE = 100;

export function createColumnProcedures(call: ModelCall) {
  async function boardField(ctx: OrgContext, boardId: string): Promise<{ board: BoardRow; field: ModelField; options: SelectOption[] }> {
    const board = await requireBoard(ctx.em, ctx.organizationId, boardId);
    const field = requireFieldOfType(await modelFields(call, ctx, board.model_key), board.field_key, ['SELECT'], 'boardId');
    return { board, field, options: selectOptions(field) };
  }

  /** The columns are the field's options: they change through dataModels.fields.update, with its checks. */
  async function writeOptions(ctx: OrgContext, board: BoardRow, field: ModelField, options: SelectOption[]) {
    const updated = await call(ctx, 'dataModels.fields.update', { model: board.model_key, key: field.key, config: { ...field.config, options } });
    return { columns: selectOptions(updated).map((option) => ({ id: option.value, label: option.label, ...(option.color ? { color: option.color } : {}) })) };
  }

  const requireColumn = (options: readonly SelectOption[], columnId: string, property: string) => {
    const index = options.findIndex((option) => option.value === columnId);
    if (index < 0) throw validationFailed([{ field: property, code: 'invalid_option', message: `The board has no column "${columnId}"` }]);
    return index;
  };

  const create = defineProcedure({
    name: 'kanban.columns.create',
    summary: "Adds a column: a new option of the board's SELECT field (last, or before another column)",
    scope: 'organization',
    permission: 'data-models.manage',
    input: ColumnsCreateInput,
    output: ColumnListSchema,
    async handler(ctx, input) {
      const { board, field, options } = await boardField(ctx, input.boardId);
      if (options.some((option) => option.value === input.id)) throw conflict(`The board already has a column "${input.id}"`);
      const at = input.before === undefined ? options.length : requireColumn(options, input.before, 'before');
      const column: SelectOption = { value: input.id, label: input.label, ...(input.color ? { color: input.color } : {}) };
      const result = await writeOptions(ctx, board, field, [...options.slice(0, at), column, ...options.slice(at)]);
      ctx.emit(createEvent('kanban.column-created', { boardId: board.id, columnId: input.id, name: input.label }, { organizationId: ctx.organizationId }));
      return result;
    },
  });

  const update = defineProcedure({
    name: 'kanban.columns.update',
    summary: "Renames or recolors a column (its option's label and color; the value, the column's id, stays)",
    scope: 'organization',
    permission: 'data-models.manage',
    input: ColumnsUpdateInput,
    output: ColumnListSchema,
    async handler(ctx, input) {
      const { board, field, options } = await boardField(ctx, input.boardId);
      const index = requireColumn(options, input.id, 'id');
      const { color: _previousColor, ...rest } = options[index];
      const color = input.color === undefined ? options[index].color : input.color;
      const changed: SelectOption = { ...rest, label: input.label ?? rest.label, ...(color ? { color } : {}) };
      return writeOptions(ctx, board, field, options.map((option, at) => (at === index ? changed : option)));
    },
  });

  const remove = defineProcedure({
    name: 'kanban.columns.delete',
    summary: 'Removes a column (its option); a column holding cards needs targetColumnId, where its cards are moved first',
    scope: 'organization',
    permission: 'data-models.manage',
    input: ColumnsDeleteInput,
    output: ColumnListSchema,
    async handler(ctx, input) {
      const { board, field, options } = await boardField(ctx, input.boardId);
      const index = requireColumn(options, input.id, 'id');
      if (input.targetColumnId !== undefined) {
        requireColumn(options, input.targetColumnId, 'targetColumnId');
        if (input.targetColumnId === input.id) {
          throw validationFailed([{ field: 'targetColumnId', code: 'invalid_option', message: 'The target is the column being deleted' }]);
        }
      }
      const inColumn = (limit: number) =>
        call(ctx, 'records.list', { model: board.model_key, limit, filter: { field: field.key, op: 'eq', value: input.id } });
      if (input.targetColumnId === undefined) {
        if ((await inColumn(1)).items.length > 0) throw conflict(`Column "${input.id}" holds cards: name a targetColumnId to move them to`);
      } else {
        // Each card moves through records.update (its checks, its record and card events); moved
        // cards leave the filter, so the first page is read again until it is empty.
        for (let page = await inColumn(MOVE_PAGE); page.items.length > 0; page = await inColumn(MOVE_PAGE)) {
          for (const record of page.items) await call(ctx, 'records.update', { id: record.id, data: { [field.key]: input.targetColumnId } });
        }
      }
      // Cards the caller cannot see still hold the value: the field update refuses, and nothing is kept.
      return writeOptions(ctx, board, field, options.filter((_, at) => at !== index));
    },
  });

  const reorder = defineProcedure({
    name: 'kanban.columns.reorder',
    summary: "Puts the columns (the field's options) in the given order; every column, once",
    scope: 'organization',
    permission: 'data-models.manage',
    input: ColumnsReorderInput,
    output: ColumnListSchema,
    async handler(ctx, input) {
      const { board, field, options } = await boardField(ctx, input.boardId);
      const byId = new Map(options.map((option) => [option.value, option]));
      if (input.ids.length !== options.length || input.ids.some((id) => !byId.has(id))) {
        throw validationFailed([{ field: 'ids', code: 'invalid_option', message: "The ids must name each of the board's columns exactly once" }]);
      }
      return writeOptions(ctx, board, field, input.ids.map((id) => byId.get(id) as SelectOption));
    },
  });

  return [create, update, remove, reorder];
}

