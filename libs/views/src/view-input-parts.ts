import { Type } from '@sinclair/typebox';

/** The ids, keys and names every view's input schemas share; like them, this imports nothing server-side. */
export const KeyInput = Type.String({ minLength: 1, maxLength: 63 });
export const IdInput = Type.String({ format: 'uuid' });
export const NameInput = Type.String({ minLength: 1, maxLength: 200 });
export const ColumnIdInput = Type.String({ minLength: 1, maxLength: 200, description: "A column: its SELECT option's value" });

/** `kanban.boards.delete`, `calendars.get`, `calendars.delete`, `views.grids.delete` */
export const ViewByIdInput = Type.Object({ id: IdInput }, { additionalProperties: false });
