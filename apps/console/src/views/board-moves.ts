/**
 * Where a card goes on a board, as pure functions of the columns' order: the pointer's drop and the
 * keyboard's arrows both end in a column and the card to sit before (kanban.cards.move's `column`
 * and `before`; none when last).
 */

/** A column as moves see it: its id and its cards' record ids, top to bottom. */
export interface ColumnOrder {
  id: string;
  cardIds: readonly string[];
}

export interface Placement {
  column: string;
  /** The card's index in the column. */
  index: number;
}

export type MoveKey = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight';

export const MOVE_KEYS: readonly string[] = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'];

/** A move as kanban.cards.move takes it, with the columns after it. */
export interface Move {
  columns: ColumnOrder[];
  column: string;
  before?: string;
}

export function findCard(columns: readonly ColumnOrder[], cardId: string): Placement | undefined {
  for (const column of columns) {
    const index = column.cardIds.indexOf(cardId);
    if (index >= 0) return { column: column.id, index };
  }
  return undefined;
}

/** The card that follows `cardId` in its column: the `before` of a move that leaves it there. */
export function cardAfter(columns: readonly ColumnOrder[], cardId: string): string | undefined {
  const place = findCard(columns, cardId);
  if (!place) return undefined;
  const column = columns.find((candidate) => candidate.id === place.column) as ColumnOrder;
  return column.cardIds[place.index + 1];
}

/**
 * The columns with the card taken from wherever it is and put in `column` before the card `before`
 * (last when there is none, or when `before` is not in that column).
 */
export function moveBefore(columns: readonly ColumnOrder[], cardId: string, column: string, before?: string): ColumnOrder[] {
  const without = columns.map((candidate) => ({ id: candidate.id, cardIds: candidate.cardIds.filter((id) => id !== cardId) }));
  return without.map((candidate) => {
    if (candidate.id !== column) return candidate;
    const at = before === undefined ? -1 : candidate.cardIds.indexOf(before);
    const cardIds = [...candidate.cardIds];
    cardIds.splice(at < 0 ? cardIds.length : at, 0, cardId);
    return { id: candidate.id, cardIds };
  });
}

/**
 * Where an arrow key takes a card: up or down one place in its column; left or right into the
 * neighbouring column at the same height (or its end when that column is shorter). Null where the
 * board ends.
 */
export function keyboardMove(columns: readonly ColumnOrder[], cardId: string, key: MoveKey): Move | null {
  const place = findCard(columns, cardId);
  if (!place) return null;
  const columnIndex = columns.findIndex((column) => column.id === place.column);
  const column = columns[columnIndex] as ColumnOrder;
  let target: Placement;
  switch (key) {
    case 'ArrowUp':
      if (place.index === 0) return null;
      target = { column: column.id, index: place.index - 1 };
      break;
    case 'ArrowDown':
      if (place.index === column.cardIds.length - 1) return null;
      target = { column: column.id, index: place.index + 1 };
      break;
    case 'ArrowLeft':
    case 'ArrowRight': {
      const neighbour = columns[columnIndex + (key === 'ArrowLeft' ? -1 : 1)];
      if (!neighbour) return null;
      target = { column: neighbour.id, index: Math.min(place.index, neighbour.cardIds.length) };
      break;
    }
  }
  const others = (columns.find((candidate) => candidate.id === target.column) as ColumnOrder).cardIds.filter((id) => id !== cardId);
  const before = others[target.index];
  return { columns: moveBefore(columns, cardId, target.column, before), column: target.column, ...(before === undefined ? {} : { before }) };
}

/** Whether a move changes anything: another column, or another card after it. */
export function movesCard(columns: readonly ColumnOrder[], cardId: string, column: string, before?: string): boolean {
  const place = findCard(columns, cardId);
  if (!place) return false;
  if (place.column !== column) return true;
  return cardAfter(columns, cardId) !== before && before !== cardId;
}
