import type { BoardView, BoardWithCards as BoardWithCardsOutput, CalendarView, CardList, CardView, ColumnView } from '@mrp/views/contracts';

/** The answers of the views procedures the console reads: their own output types. */

export type { CalendarEventPage, CardMove } from '@mrp/views/contracts';

/** `kanban.boards.list` items, `kanban.boards.create` */
export type Board = BoardView;

/** A card: a record of the board's model, its place in its column and who is on it. */
export type Card = CardView;

/** `kanban.boards.get` columns: an option of the board's field, with its first cards. */
export type BoardColumn = ColumnView;

/** `kanban.boards.get` */
export type BoardWithCards = BoardWithCardsOutput;

/** `kanban.cards.list` */
export type CardPage = CardList;

/** `calendars.list` items, `calendars.get`, `calendars.create` */
export type Calendar = CalendarView;

/** `organizations.get` and its members, for the people on cards. */
export type { Member, OrganizationWithMembers } from '../organization/types';
