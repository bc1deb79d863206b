import { useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { DataField } from '../data-models/types';
import { checkRecordData } from '../records/record-form';
import { cardAfter, findCard, keyboardMove, moveBefore, movesCard, MOVE_KEYS, type ColumnOrder, type MoveKey } from './board-moves';
import { filterOrder } from './people';
import type { Card, Member } from './types';
import type { BoardState } from './use-board';

interface Lifted {
  cardId: string;
  /** The board as it was when the card was picked up: Escape and a refusal put it back. */
  before: ColumnOrder[];
}

export interface DropTarget {
  column: string;
  before?: string;
}

export interface CardMovesInput {
  board: BoardState;
  fields: DataField[];
  /** The SELECT field whose options are the columns. */
  boardField: DataField | undefined;
  members: ReadonlyMap<string, Member>;
  filter: string;
  mayMove: boolean;
  /** Enter on a card that is not picked up. */
  onOpen(card: Card): void;
  /** Said to screen readers (an aria-live region). */
  announce(text: string): void;
}

/**
 * Moving cards by keyboard (Space picks up, arrows move, Space drops, Escape cancels) and by pointer
 * (drag and drop with a marker where it lands). A move is checked with the record rules first; a
 * refusal, the browser's or the server's, puts the card back.
 */
export function useCardMoves({ board, fields, boardField, members, filter, mayMove, onOpen, announce }: CardMovesInput) {
  const [moveError, setMoveError] = useState<unknown>();
  const [lifted, setLifted] = useState<Lifted | null>(null);
  const [dragging, setDragging] = useState<string | null>(null);
  const [dropTarget, setDropTarget] = useState<DropTarget | null>(null);
  const refocus = useRef<string | null>(null);
  // Read by the drag handlers, which can run before React draws the drag's start.
  const draggedCard = useRef<string | null>(null);
  const aimedAt = useRef<DropTarget | null>(null);
  const aim = (target: DropTarget | null) => {
    const current = aimedAt.current;
    if (current?.column === target?.column && current?.before === target?.before) return;
    aimedAt.current = target;
    setDropTarget(target);
  };

  const columns = useMemo(() => board.data?.columns ?? [], [board.data]);
  const labelOf = (columnId: string) => columns.find((column) => column.id === columnId)?.label ?? columnId;
  const visible = useMemo(() => filterOrder(board.order, board.cards, members, filter), [board.order, board.cards, members, filter]);

  // A card moved by the keyboard is drawn anew in its new place: the focus follows it.
  useEffect(() => {
    if (!refocus.current) return;
    document.querySelector<HTMLElement>(`[data-card-id="${refocus.current}"]`)?.focus();
    refocus.current = null;
  });

  const titleOf = (cardId: string) => board.cards.get(cardId)?.record.title || 'Untitled';
  const whereIs = (order: readonly ColumnOrder[], cardId: string) => {
    const place = findCard(order, cardId);
    if (!place) return '';
    const count = order.find((column) => column.id === place.column)?.cardIds.length ?? 0;
    return `${labelOf(place.column)}, position ${place.index + 1} of ${count}`;
  };

  const sendMove = async (cardId: string, column: string, before: string | undefined, restore: ColumnOrder[]) => {
    setMoveError(undefined);
    const card = board.cards.get(cardId);
    if (card && boardField && card.record.data[boardField.key] !== column) {
      const checked = checkRecordData(fields, { [boardField.key]: column }, 'update');
      if (checked.errors.length > 0) {
        board.show(restore);
        setMoveError(new Error(checked.errors.map((error) => error.message).join(' ')));
        announce(`${titleOf(cardId)} could not be moved and is back in ${whereIs(restore, cardId)}.`);
        return;
      }
    }
    try {
      await board.move(cardId, column, before, restore);
    } catch (failure) {
      setMoveError(failure);
      announce(`The move of ${titleOf(cardId)} was refused; it is back in ${whereIs(restore, cardId)}.`);
    }
  };

  const onLiftedKey = (cardId: string, held: Lifted, event: KeyboardEvent<HTMLElement>) => {
    if (MOVE_KEYS.includes(event.key)) {
      event.preventDefault();
      const move = keyboardMove(visible, cardId, event.key as MoveKey);
      if (!move) {
        announce(`${titleOf(cardId)} cannot go further that way.`);
        return;
      }
      const next = moveBefore(board.order, cardId, move.column, move.before);
      refocus.current = cardId;
      board.show(next);
      announce(`${titleOf(cardId)}: ${whereIs(filterOrder(next, board.cards, members, filter), cardId)}.`);
    } else if (event.key === ' ' || event.key === 'Enter') {
      event.preventDefault();
      const place = findCard(board.order, cardId);
      setLifted(null);
      if (!place) return;
      const before = cardAfter(visible, cardId);
      announce(`${titleOf(cardId)} dropped in ${whereIs(visible, cardId)}.`);
      if (movesCard(held.before, cardId, place.column, cardAfter(board.order, cardId))) void sendMove(cardId, place.column, before, held.before);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      refocus.current = cardId;
      board.show(held.before);
      setLifted(null);
      announce(`Move cancelled. ${titleOf(cardId)} is back in ${whereIs(held.before, cardId)}.`);
    } else if (event.key === 'Tab') {
      board.show(held.before);
      setLifted(null);
      announce(`Move cancelled.`);
    }
  };

  const onCardKeyDown = (cardId: string) => (event: KeyboardEvent<HTMLElement>) => {
    if (event.target !== event.currentTarget) return;
    const card = board.cards.get(cardId);
    if (!card) return;
    if (lifted?.cardId === cardId) {
      onLiftedKey(cardId, lifted, event);
      return;
    }
    if (event.key === 'Enter') {
      event.preventDefault();
      onOpen(card);
    } else if (event.key === ' ' && mayMove && !lifted) {
      event.preventDefault();
      setMoveError(undefined);
      setLifted({ cardId, before: board.order });
      announce(`${titleOf(cardId)} picked up, in ${whereIs(visible, cardId)}. Arrow keys move it, Space drops it, Escape cancels.`);
    }
  };

  const onDragStart = (cardId: string) => (event: DragEvent<HTMLElement>) => {
    event.dataTransfer.setData('text/plain', cardId);
    event.dataTransfer.effectAllowed = 'move';
    setMoveError(undefined);
    draggedCard.current = cardId;
    setDragging(cardId);
  };
  const endDrag = () => {
    draggedCard.current = null;
    setDragging(null);
    aim(null);
  };
  /** Over a card: before it in its upper half, after it in its lower half. */
  const onCardDragOver = (column: string, cardId: string) => (event: DragEvent<HTMLElement>) => {
    const dragged = draggedCard.current;
    if (!dragged) return;
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer.dropEffect = 'move';
    const box = event.currentTarget.getBoundingClientRect();
    const cardIds = (visible.find((candidate) => candidate.id === column)?.cardIds ?? []).filter((id) => id !== dragged);
    const at = cardIds.indexOf(cardId);
    const before = event.clientY < box.top + box.height / 2 ? cardId : cardIds[at + 1];
    aim({ column, ...(before === undefined ? {} : { before }) });
  };
  const onColumnDragOver = (column: string) => (event: DragEvent<HTMLElement>) => {
    if (!draggedCard.current) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    aim({ column });
  };
  const onDrop = (column: string) => (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    const cardId = draggedCard.current ?? event.dataTransfer.getData('text/plain');
    const target = aimedAt.current?.column === column ? aimedAt.current : { column };
    endDrag();
    if (!cardId || !board.cards.has(cardId)) return;
    if (!movesCard(visible, cardId, target.column, target.before)) return;
    const restore = board.order;
    announce(`${titleOf(cardId)} moved to ${labelOf(target.column)}.`);
    void sendMove(cardId, target.column, target.before, restore);
  };

  return {
    visible,
    liftedCardId: lifted?.cardId ?? null,
    dragging,
    dropTarget,
    moveError,
    setMoveError,
    onCardKeyDown,
    onDragStart,
    endDrag,
    onCardDragOver,
    onColumnDragOver,
    onDrop,
  };
}

export type CardMoves = ReturnType<typeof useCardMoves>;
