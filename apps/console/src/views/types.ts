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

/** The shapes of the organization procedures' answers the views read (authz), restated from their output schemas. */

/** `organizations.get` members */
export interface Member {
  userId: string;
  kind: 'HUMAN' | 'SERVICE';
  email: string;
  displayName: string;
  roleKeys: string[];
  joinedAt: string;
  disabled: boolean;
}

/** `organizations.get` */
export interface OrganizationWithMembers {
  id: string;
  name: string;
  members: Member[];
}
