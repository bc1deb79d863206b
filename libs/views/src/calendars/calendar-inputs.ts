import { Type } from '@sinclair/typebox';
import { IdInput, KeyInput, NameInput } from '../view-input-parts';

/**
 * The input schemas of the `calendars.*` procedures. Their static types are the inputs of the
 * views lib's contracts (decision 155): this file imports nothing server-side.
 */

export const MAX_EVENTS_PER_PAGE = 100;

/** `calendars.list` */
export const CalendarsListInput = Type.Object({ modelKey: Type.Optional(KeyInput) }, { additionalProperties: false });

/** `calendars.create` */
export const CalendarsCreateInput = Type.Object(
  { name: NameInput, modelKey: KeyInput, startFieldKey: KeyInput, endFieldKey: Type.Optional(KeyInput) },
  { additionalProperties: false },
);

/** `calendars.update` */
export const CalendarsUpdateInput = Type.Object(
  {
    id: IdInput,
    name: Type.Optional(NameInput),
    startFieldKey: Type.Optional(KeyInput),
    endFieldKey: Type.Optional(Type.Union([KeyInput, Type.Null()], { description: 'null: no end field' })),
  },
  { additionalProperties: false },
);

/** `calendars.events` */
export const CalendarsEventsInput = Type.Object(
  {
    id: IdInput,
    from: Type.String({ format: 'date-time', description: 'Window start (inclusive)' }),
    to: Type.String({ format: 'date-time', description: 'Window end (exclusive; for DATE fields, the day of `to` is included)' }),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EVENTS_PER_PAGE, default: 100 })),
  },
  { additionalProperties: false },
);
