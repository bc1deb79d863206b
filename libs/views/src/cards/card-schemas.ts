import { Type, type Static } from '@sinclair/typebox';
import { DataRecordSchema } from '../record-schema';

export const CardSchema = Type.Object(
  {
    record: DataRecordSchema({ description: 'The record, as records.get answers it' }),
    position: Type.String({ description: 'Fractional index within the column (byte order)' }),
    assigneeUserIds: Type.Array(Type.String()),
  },
  { title: 'KanbanCard' },
);
export type CardView = Static<typeof CardSchema>;

/** `kanban.cards.list` */
export const CardListSchema = Type.Object({ items: Type.Array(CardSchema), nextCursor: Type.Union([Type.String(), Type.Null()]) });
export type CardList = Static<typeof CardListSchema>;

/** `kanban.cards.move`: the record as changed, and its card's new place. */
export const CardMoveSchema = Type.Object({ record: DataRecordSchema(), column: Type.String(), position: Type.String() }, { title: 'KanbanMove' });
export type CardMove = Static<typeof CardMoveSchema>;

/** `kanban.cards.assign` */
export const CardAssignmentSchema = Type.Object(
  { boardId: Type.String(), recordId: Type.String(), userIds: Type.Array(Type.String()) },
  { title: 'KanbanAssignment' },
);
export type CardAssignment = Static<typeof CardAssignmentSchema>;
