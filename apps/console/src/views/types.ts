import type { DataRecord } from '../data-models/types';

/**
 * The shapes of the views procedures' answers the console reads, restated from their output
 * schemas (the console imports nothing server-side).
 */

/** `kanban.boards.list` items, `kanban.boards.create` */
export interface Board {
  id: string;
  name: string;
  modelKey: string;
  /** The SELECT field whose options are the columns. */
  fieldKey: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** A card: a record of the board's model, its place in its column and who is on it. */
export interface Card {
  record: DataRecord;
  position: string;
  assigneeUserIds: string[];
}

/** `kanban.boards.get` columns: an option of the board's field, with its first cards. */
export interface BoardColumn {
  /** The option's value. */
  id: string;
  label: string;
  color?: string;
  cards: Card[];
  nextCursor: string | null;
}

/** `kanban.boards.get` */
export interface BoardWithCards {
  board: Board;
  columns: BoardColumn[];
}

/** `kanban.cards.list` */
export interface CardPage {
  items: Card[];
  nextCursor: string | null;
}

/** `kanban.columns.*`: the columns after the change. */
export interface ColumnList {
  columns: Array<{ id: string; label: string; color?: string }>;
}

/** `calendars.list` items, `calendars.get`, `calendars.create` */
export interface Calendar {
  id: string;
  name: string;
  modelKey: string;
  /** A DATETIME or DATE field: where an event starts. */
  startFieldKey: string;
  /** A field of the same type where it ends, or null. */
  endFieldKey: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

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
