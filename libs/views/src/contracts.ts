/**
 * The static types of the views lib's procedure answers (kanban boards, cards and columns,
 * calendars, saved grid views), for code that calls the procedures by name (the console over
 * /rpc): the types of the TypeBox schemas the procedures declare, so each shape is written once.
 * Types only: nothing here runs, its imports are `import type` (lint), and the schema files it
 * reads import only TypeBox and data-models' contracts.
 */
export type { BoardList, BoardView, BoardWithCards, ColumnList, ColumnView } from './boards/board-schemas';
export type { CalendarEventPage, CalendarList, CalendarView } from './calendars/calendar-schemas';
export type { CardAssignment, CardList, CardMove, CardView } from './cards/card-schemas';
export type { GridView, GridViewList, GridViewState } from './grids/grid-view-schemas';
