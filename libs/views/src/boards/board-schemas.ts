import { Type, type Static } from '@sinclair/typebox';
import { CardSchema } from '../cards/card-schemas';
import { authorship, wholeList } from '../view-schema-parts';

export const BoardSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    modelKey: Type.String(),
    fieldKey: Type.String({ description: 'The SELECT field whose options are the columns' }),
    ...authorship,
  },
  { title: 'KanbanBoard' },
);
export type BoardView = Static<typeof BoardSchema>;

/** `kanban.boards.list` */
export const BoardListSchema = wholeList(BoardSchema);
export type BoardList = Static<typeof BoardListSchema>;

/** A column of `kanban.boards.get`: an option of the board's field, with its first cards. */
export const ColumnSchema = Type.Object(
  {
    id: Type.String({ description: "The SELECT option's value" }),
    label: Type.String(),
    color: Type.Optional(Type.String()),
    cards: Type.Array(CardSchema),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'For kanban.cards.list' }),
  },
  { title: 'KanbanColumn' },
);
export type ColumnView = Static<typeof ColumnSchema>;

/** `kanban.boards.get` */
export const BoardWithCardsSchema = Type.Object({ board: BoardSchema, columns: Type.Array(ColumnSchema) }, { title: 'KanbanBoardWithCards' });
export type BoardWithCards = Static<typeof BoardWithCardsSchema>;

/** `kanban.columns.*`: the columns after the change. */
export const ColumnListSchema = Type.Object(
  { columns: Type.Array(Type.Object({ id: Type.String(), label: Type.String(), color: Type.Optional(Type.String()) })) },
  { title: 'KanbanColumns' },
);
export type ColumnList = Static<typeof ColumnListSchema>;
