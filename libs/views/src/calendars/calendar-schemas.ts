import { Type, type Static } from '@sinclair/typebox';
import { DataRecordSchema } from '../record-schema';
import { authorship, wholeList } from '../view-schema-parts';

export const CalendarSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    modelKey: Type.String(),
    startFieldKey: Type.String({ description: 'A DATETIME or DATE field: where an event starts' }),
    endFieldKey: Type.Union([Type.String(), Type.Null()], { description: 'A field of the same type: where it ends (optional)' }),
    ...authorship,
  },
  { title: 'Calendar' },
);
export type CalendarView = Static<typeof CalendarSchema>;

/** `calendars.list` */
export const CalendarListSchema = wholeList(CalendarSchema);
export type CalendarList = Static<typeof CalendarListSchema>;

/** `calendars.events`: the records in the window, as `records.list` pages them. */
export const CalendarEventPageSchema = Type.Object({ items: Type.Array(DataRecordSchema()), nextCursor: Type.Union([Type.String(), Type.Null()]) });
export type CalendarEventPage = Static<typeof CalendarEventPageSchema>;
