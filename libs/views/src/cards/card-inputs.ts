import { Type } from '@sinclair/typebox';
import { ColumnIdInput, IdInput } from '../view-input-parts';

/**
 * The input schemas of the `kanban.cards.*` procedures. Their static types are the inputs of the
 * views lib's contracts (decision 155): this file imports nothing server-side.
 */

export const MAX_CARDS_PER_PAGE = 100;
export const MAX_ASSIGNEES = 20;

const RecordIdInput = Type.String({ format: 'uuid', description: 'The card: a record of the board\'s model' });

/** `kanban.cards.list` */
export const CardsListInput = Type.Object(
  {
    boardId: IdInput,
    column: ColumnIdInput,
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CARDS_PER_PAGE, default: 25 })),
  },
  { additionalProperties: false },
);

/** `kanban.cards.move` */
export const CardsMoveInput = Type.Object(
  {
    boardId: IdInput,
    recordId: RecordIdInput,
    column: ColumnIdInput,
    before: Type.Optional(Type.String({ format: 'uuid', description: 'The card to place it before; last when absent' })),
  },
  { additionalProperties: false },
);

/** `kanban.cards.assign` */
export const CardsAssignInput = Type.Object(
  { boardId: IdInput, recordId: RecordIdInput, userIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: MAX_ASSIGNEES, uniqueItems: true }) },
  { additionalProperties: false },
);
