/**
 * The static types of the views lib's procedure inputs and answers (kanban boards, cards and
 * columns, calendars, saved grid views), for code that calls the procedures by name (the console
 * over /rpc): the types of the TypeBox schemas the procedures declare, so each shape is written
 * once. Types only: nothing here runs, its imports are `import type` (lint), and the schema files
 * it reads import only TypeBox and data-models' contracts.
 */
import type { Static } from '@sinclair/typebox';
import type * as BoardInputs from './boards/board-inputs';
import type * as BoardSchemas from './boards/board-schemas';
import type * as CalendarInputs from './calendars/calendar-inputs';
import type * as CalendarSchemas from './calendars/calendar-schemas';
import type * as CardInputs from './cards/card-inputs';
import type * as CardSchemas from './cards/card-schemas';
import type * as GridViewInputs from './grids/grid-view-inputs';
import type * as GridViewSchemas from './grids/grid-view-schemas';
import type * as ViewInputParts from './view-input-parts';
import type * as ViewSchemaParts from './view-schema-parts';

export type { BoardList, BoardView, BoardWithCards, ColumnList, ColumnView } from './boards/board-schemas';
export type { CalendarEventPage, CalendarList, CalendarView } from './calendars/calendar-schemas';
export type { CardAssignment, CardList, CardMove, CardView } from './cards/card-schemas';
export type { GridView, GridViewList, GridViewState } from './grids/grid-view-schemas';

type ById = Static<typeof ViewInputParts.ViewByIdInput>;
type Deleted = Static<typeof ViewSchemaParts.DeletedViewSchema>;

/**
 * What each views procedure a door serves takes and answers, by name: the static types of the
 * input and output schemas it declares (`procedures.spec.ts` fails when they drift). A caller by
 * name (the console's `call`) gets both from the name alone.
 */
export interface ViewsProcedures {
  'kanban.boards.list': { input: Static<typeof BoardInputs.BoardsListInput>; output: Static<typeof BoardSchemas.BoardListSchema> };
  'kanban.boards.get': { input: Static<typeof BoardInputs.BoardsGetInput>; output: Static<typeof BoardSchemas.BoardWithCardsSchema> };
  'kanban.boards.create': { input: Static<typeof BoardInputs.BoardsCreateInput>; output: Static<typeof BoardSchemas.BoardSchema> };
  'kanban.boards.update': { input: Static<typeof BoardInputs.BoardsUpdateInput>; output: Static<typeof BoardSchemas.BoardSchema> };
  'kanban.boards.delete': { input: ById; output: Deleted };
  'kanban.columns.create': { input: Static<typeof BoardInputs.ColumnsCreateInput>; output: Static<typeof BoardSchemas.ColumnListSchema> };
  'kanban.columns.update': { input: Static<typeof BoardInputs.ColumnsUpdateInput>; output: Static<typeof BoardSchemas.ColumnListSchema> };
  'kanban.columns.delete': { input: Static<typeof BoardInputs.ColumnsDeleteInput>; output: Static<typeof BoardSchemas.ColumnListSchema> };
  'kanban.columns.reorder': { input: Static<typeof BoardInputs.ColumnsReorderInput>; output: Static<typeof BoardSchemas.ColumnListSchema> };
  'kanban.cards.list': { input: Static<typeof CardInputs.CardsListInput>; output: Static<typeof CardSchemas.CardListSchema> };
  'kanban.cards.move': { input: Static<typeof CardInputs.CardsMoveInput>; output: Static<typeof CardSchemas.CardMoveSchema> };
  'kanban.cards.assign': { input: Static<typeof CardInputs.CardsAssignInput>; output: Static<typeof CardSchemas.CardAssignmentSchema> };
  'calendars.list': { input: Static<typeof CalendarInputs.CalendarsListInput>; output: Static<typeof CalendarSchemas.CalendarListSchema> };
  'calendars.get': { input: ById; output: Static<typeof CalendarSchemas.CalendarSchema> };
  'calendars.create': { input: Static<typeof CalendarInputs.CalendarsCreateInput>; output: Static<typeof CalendarSchemas.CalendarSchema> };
  'calendars.update': { input: Static<typeof CalendarInputs.CalendarsUpdateInput>; output: Static<typeof CalendarSchemas.CalendarSchema> };
  'calendars.delete': { input: ById; output: Deleted };
  'calendars.events': { input: Static<typeof CalendarInputs.CalendarsEventsInput>; output: Static<typeof CalendarSchemas.CalendarEventPageSchema> };
  'views.grids.list': { input: Static<typeof GridViewInputs.GridsListInput>; output: Static<typeof GridViewSchemas.GridViewListSchema> };
  'views.grids.create': { input: Static<typeof GridViewInputs.GridsCreateInput>; output: Static<typeof GridViewSchemas.GridViewSchema> };
  'views.grids.update': { input: Static<typeof GridViewInputs.GridsUpdateInput>; output: Static<typeof GridViewSchemas.GridViewSchema> };
  'views.grids.delete': { input: ById; output: Deleted };
}
