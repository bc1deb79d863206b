import { useCallback, useEffect, useRef, useState } from 'react';
import { useRpcQuery } from '../api/use-rpc-query';
import { useSignedIn } from '../session/session-context';
import { moveBefore, type ColumnOrder } from './board-moves';
import type { BoardColumn, BoardWithCards, Card } from './types';

/** Cards read per column at a time. */
export const CARDS_PER_PAGE = 50;

export interface BoardState {
  data: BoardWithCards | undefined;
  error: unknown;
  loading: boolean;
  /** The columns' cards in order, as shown (moves change it at once, before the server answers). */
  order: ColumnOrder[];
  cards: ReadonlyMap<string, Card>;
  /** Next pages per column. */
  cursors: Readonly<Record<string, string | null>>;
  reload(): Promise<void>;
  /** Shows a new order at once, without asking the server (a keyboard move in progress). */
  show(order: ColumnOrder[]): void;
  /**
   * Moves a card on the server; shown at once and put back as `restore` (or as it was) when the
   * server refuses, in which case the refusal is thrown.
   */
  move(cardId: string, column: string, before: string | undefined, restore?: ColumnOrder[]): Promise<void>;
  loadMore(column: string): Promise<void>;
  updateCard(recordId: string, change: Partial<Card>): void;
}

const orderOf = (columns: readonly BoardColumn[]): ColumnOrder[] => columns.map((column) => ({ id: column.id, cardIds: column.cards.map((card) => card.record.id) }));

/** A board's columns and cards, with moves shown before the server confirms them. */
export function useBoard(boardId: string): BoardState {
  const { rpc } = useSignedIn();
  const query = useRpcQuery('kanban.boards.get', { id: boardId, cardsPerColumn: CARDS_PER_PAGE });
  const [order, setOrder] = useState<ColumnOrder[]>([]);
  const [cards, setCards] = useState<Map<string, Card>>(new Map());
  const [cursors, setCursors] = useState<Record<string, string | null>>({});
  const current = useRef<ColumnOrder[]>([]);

  const show = useCallback((next: ColumnOrder[]) => {
    current.current = next;
    setOrder(next);
  }, []);

  useEffect(() => {
    if (!query.data) return;
    show(orderOf(query.data.columns));
    setCards(new Map(query.data.columns.flatMap((column) => column.cards.map((card) => [card.record.id, card] as const))));
    setCursors(Object.fromEntries(query.data.columns.map((column) => [column.id, column.nextCursor])));
  }, [query.data, show]);

  const updateCard = useCallback((recordId: string, change: Partial<Card>) => {
    setCards((known) => {
      const card = known.get(recordId);
      if (!card) return known;
      return new Map(known).set(recordId, { ...card, ...change });
    });
  }, []);

  const move = useCallback(
    async (cardId: string, column: string, before: string | undefined, restore?: ColumnOrder[]) => {
      const previous = restore ?? current.current;
      show(moveBefore(current.current, cardId, column, before));
      try {
        const moved = await rpc.call('kanban.cards.move', {
          boardId,
          recordId: cardId,
          column,
          ...(before === undefined ? {} : { before }),
        });
        updateCard(cardId, { record: moved.record, position: moved.position });
      } catch (failure) {
        show(previous);
        throw failure;
      }
    },
    [rpc, boardId, show, updateCard],
  );

  const loadMore = useCallback(
    async (column: string) => {
      const cursor = cursors[column];
      if (!cursor) return;
      const page = await rpc.call('kanban.cards.list', { boardId, column, cursor, limit: CARDS_PER_PAGE });
      setCards((known) => {
        const next = new Map(known);
        for (const card of page.items) next.set(card.record.id, card);
        return next;
      });
      show(
        current.current.map((candidate) =>
          candidate.id === column ? { id: column, cardIds: [...candidate.cardIds, ...page.items.map((card) => card.record.id).filter((id) => !candidate.cardIds.includes(id))] } : candidate,
        ),
      );
      setCursors((known) => ({ ...known, [column]: page.nextCursor }));
    },
    [rpc, boardId, cursors, show],
  );

  return { data: query.data, error: query.error, loading: query.loading, order, cards, cursors, reload: query.reload, show, move, loadMore, updateCard };
}
