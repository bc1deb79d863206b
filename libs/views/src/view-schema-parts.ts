import { Type, type TSchema } from '@sinclair/typebox';

/** Who made a view and when it last changed: every view's answer carries them. */
export const authorship = {
  createdBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

/** A list of a model's views: all of them in one page (a model has few), so never a next cursor. */
export const wholeList = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item), nextCursor: Type.Null() });

/** What deleting a view answers. */
export const DeletedViewSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
