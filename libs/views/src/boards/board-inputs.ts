import { Type } from '@sinclair/typebox';
import { MAX_CARDS_PER_PAGE } from '../cards/card-inputs';
import { ColumnIdInput, IdInput, KeyInput, NameInput } from '../view-input-parts';

/**
 * The input schemas of the `kanban.boards.*` and `kanban.columns.*` procedures. Their static types
 * are the inputs of the views lib's contracts (decision 155): this file imports nothing server-side.
 */

const LabelInput = Type.String({ minLength: 1, maxLength: 200 });
const ColorInput = Type.String({ minLength: 1, maxLength: 50 });

/** `kanban.boards.list` */
export const BoardsListInput = Type.Object({ modelKey: Type.Optional(KeyInput) }, { additionalProperties: false });

/** `kanban.boards.get` */
export const BoardsGetInput = Type.Object(
  {
    id: IdInput,
    cardsPerColumn: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CARDS_PER_PAGE, default: 20, description: 'Cards listed per column' })),
  },
  { additionalProperties: false },
);

/** `kanban.boards.create` */
export const BoardsCreateInput = Type.Object({ name: NameInput, modelKey: KeyInput, fieldKey: KeyInput }, { additionalProperties: false });

/** `kanban.boards.update` */
export const BoardsUpdateInput = Type.Object({ id: IdInput, name: NameInput }, { additionalProperties: false });

/** `kanban.columns.create` */
export const ColumnsCreateInput = Type.Object(
  { boardId: IdInput, id: ColumnIdInput, label: LabelInput, color: Type.Optional(ColorInput), before: Type.Optional(ColumnIdInput) },
  { additionalProperties: false },
);

/** `kanban.columns.update` */
export const ColumnsUpdateInput = Type.Object(
  { boardId: IdInput, id: ColumnIdInput, label: Type.Optional(LabelInput), color: Type.Optional(Type.Union([ColorInput, Type.Null()])) },
  { additionalProperties: false },
);

/** `kanban.columns.delete` */
export const ColumnsDeleteInput = Type.Object({ boardId: IdInput, id: ColumnIdInput, targetColumnId: Type.Optional(ColumnIdInput) }, { additionalProperties: false });

/** `kanban.columns.reorder` */
export const ColumnsReorderInput = Type.Object({ boardId: IdInput, ids: Type.Array(ColumnIdInput, { maxItems: 1000, uniqueItems: true }) }, { additionalProperties: false });
