import { defineProcedure, newId, notFound, type ProcedureContext } from '@mrp/platform';
import { createEvent, type RouteCache } from '@mrp/events';
import { columnPage } from '../cards/card-listing';
import { placeNewAtEnd } from '../cards/card-positions';
import { modelFields, requireFieldOfType, selectOptions, type ModelCall } from '../model-calls';
import { DeletedViewSchema } from '../view-schema-parts';
import { ViewByIdInput } from '../view-input-parts';
import { BoardsCreateInput, BoardsGetInput, BoardsListInput, BoardsUpdateInput } from './board-inputs';
import { BOARD_COLUMNS, boardView, requireBoard, type BoardRoute, type BoardRow } from './board-rows';
import { BoardListSchema, BoardSchema, BoardWithCardsSchema, type BoardView, type ColumnView } from './board-schemas';

export interface BoardProcedureDeps {
  call: ModelCall;
  routes: RouteCache<BoardRoute>;
}

type OrgContext = ProcedureContext<'organization'>;

/** Records read per page when a new board gives the model's existing cards their places. */
const BACKFILL_PAGE = 100;

/**
 * Gives the cards that exist when a board is made their places, column by column in creation
 * order. It reads as the board's creator: cards they cannot see get a place the first time one of
 * their changes passes the card event deriver.
 */
async function placeExistingCards(call: ModelCall, ctx: OrgContext, board: BoardRow): Promise<void> {
  if (!ctx.hasPermission('records.read')) return;
  const byColumn = new Map<string, string[]>();
  let cursor: string | undefined;
  do {
    const page = await call(ctx, 'records.list', {
      model: board.model_key,
      limit: BACKFILL_PAGE,
      sort: 'createdAt',
      filter: { field: board.field_key, op: 'isNotEmpty' },
      ...(cursor ? { cursor } : {}),
    });
    for (const record of page.items) {
      const column = record.data[board.field_key];
      if (typeof column === 'string') byColumn.set(column, [...(byColumn.get(column) ?? []), record.id]);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  for (const [column, recordIds] of byColumn) await placeNewAtEnd(ctx.em, board.id, column, recordIds);
}

export function createBoardProcedures({ call, routes }: BoardProcedureDeps) {
  /** This process forgets the organization's boards at commit; the others, when the trigger's notice arrives. */
  const forgetBoards = (ctx: OrgContext) => ctx.afterCommit(async () => routes.forget(ctx.organizationId));

  const list = defineProcedure({
    name: 'kanban.boards.list',
    summary: "Lists the organization's kanban boards",
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: BoardsListInput,
    output: BoardListSchema,
    async handler(ctx, input) {
      const rows = await ctx.em.execute<BoardRow[]>(
        `SELECT ${BOARD_COLUMNS} FROM kanban_boards WHERE organization_id = ? AND (?::text IS NULL OR model_key = ?) ORDER BY name, id`,
        [ctx.organizationId, input.modelKey ?? null, input.modelKey ?? null],
      );
      return { items: rows.map(boardView), nextCursor: null };
    },
  });

  const get = defineProcedure({
    name: 'kanban.boards.get',
    summary: "A board with its columns (the field's options, in order) and the first cards of each, in position order",
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: BoardsGetInput,
    output: BoardWithCardsSchema,
    async handler(ctx, input) {
      const board = await requireBoard(ctx.em, ctx.organizationId, input.id);
      const field = (await modelFields(call, ctx, board.model_key)).find((candidate) => candidate.key === board.field_key);
      const options = field?.type === 'SELECT' ? selectOptions(field) : [];
      const limit = input.cardsPerColumn ?? 20;
      const columns: ColumnView[] = [];
      for (const option of options) {
        const page = limit === 0 ? { cards: [], nextCursor: null } : await columnPage(call, ctx, board, option.value, undefined, limit);
        columns.push({ id: option.value, label: option.label, ...(option.color ? { color: option.color } : {}), ...page });
      }
      return { board: boardView(board), columns };
    },
  });

  const create = defineProcedure({
    name: 'kanban.boards.create',
    summary: "Creates a board over a model: its columns are the options of one of the model's SELECT fields",
    scope: 'organization',
    permission: 'data-models.manage',
    input: BoardsCreateInput,
    output: BoardSchema,
    async handler(ctx, input): Promise<BoardView> {
      requireFieldOfType(await modelFields(call, ctx, input.modelKey), input.fieldKey, ['SELECT'], 'fieldKey');
      const [board] = await ctx.em.execute<BoardRow[]>(
        `INSERT INTO kanban_boards (id, organization_id, name, model_key, field_key, created_by) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${BOARD_COLUMNS}`,
        [newId(), ctx.organizationId, input.name, input.modelKey, input.fieldKey, ctx.principal.userId],
      );
      await placeExistingCards(call, ctx, board);
      ctx.emit(
        createEvent(
          'kanban.board-created',
          { boardId: board.id, name: board.name, modelKey: board.model_key, fieldKey: board.field_key },
          { organizationId: ctx.organizationId },
        ),
      );
      forgetBoards(ctx);
      return boardView(board);
    },
  });

  const update = defineProcedure({
    name: 'kanban.boards.update',
    summary: 'Renames a board',
    scope: 'organization',
    permission: 'data-models.manage',
    input: BoardsUpdateInput,
    output: BoardSchema,
    async handler(ctx, input): Promise<BoardView> {
      const [board] = await ctx.em.execute<BoardRow[]>(
        `UPDATE kanban_boards SET name = ?, updated_at = now() WHERE id = ? AND organization_id = ? RETURNING ${BOARD_COLUMNS}`,
        [input.name, input.id, ctx.organizationId],
      );
      if (!board) throw notFound('Board');
      return boardView(board);
    },
  });

  const remove = defineProcedure({
    name: 'kanban.boards.delete',
    summary: "Deletes a board with its cards' places and assignments; the model's records stay",
    scope: 'organization',
    permission: 'data-models.manage',
    input: ViewByIdInput,
    output: DeletedViewSchema,
    async handler(ctx, input) {
      const deleted = await ctx.em.execute<Array<{ id: string }>>('DELETE FROM kanban_boards WHERE id = ? AND organization_id = ? RETURNING id', [
        input.id,
        ctx.organizationId,
      ]);
      if (deleted.length === 0) throw notFound('Board');
      forgetBoards(ctx);
      return { id: input.id, deleted: true as const };
    },
  });

  return [list, get, create, update, remove];
}
