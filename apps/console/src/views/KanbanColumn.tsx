import type { BoardColumn, Card, Member } from './types';
import { KanbanCard } from './KanbanCard';
import type { CardMoves } from './use-card-moves';

export interface KanbanColumnProps {
  column: Pick<BoardColumn, 'id' | 'label'>;
  index: number;
  columnCount: number;
  /** The cards shown (after the filter), and how many the column holds. */
  cardIds: readonly string[];
  total: number;
  filtering: boolean;
  cards: ReadonlyMap<string, Card>;
  members: ReadonlyMap<string, Member>;
  moves: CardMoves;
  mayMove: boolean;
  mayManage: boolean;
  hasMore: boolean;
  instructionsId: string;
  onOpen(card: Card): void;
  onAssign(card: Card): void;
  onRename(): void;
  onReorder(step: -1 | 1): void;
  onDelete(): void;
  onMore(): void;
}

/** One column of a board: its heading and count, its actions for managers, and its cards (a drop target). */
export function KanbanColumn(props: KanbanColumnProps) {
  const { column, index, columnCount, cardIds, total, filtering, cards, members, moves, mayMove, mayManage, hasMore, instructionsId } = props;
  const marker = moves.dragging && moves.dropTarget?.column === column.id ? (moves.dropTarget.before ?? null) : undefined;
  const headingId = `column-${index}-title`;
  return (
    <section className={`kanban-column${marker !== undefined ? ' kanban-column-target' : ''}`} aria-labelledby={headingId} data-column-id={column.id}>
      <header className="kanban-column-head">
        <h2 id={headingId}>
          {column.label} <span className="kanban-count">{filtering ? `${cardIds.length} of ${total}` : total}</span>
        </h2>
        {mayManage ? (
          <div className="button-row kanban-column-actions">
            <button type="button" className="button button-small" aria-label={`Rename column ${column.label}`} onClick={props.onRename}>
              Rename
            </button>
            <button type="button" className="button button-small" aria-label={`Move column ${column.label} left`} disabled={index === 0} onClick={() => props.onReorder(-1)}>
              ←
            </button>
            <button
              type="button"
              className="button button-small"
              aria-label={`Move column ${column.label} right`}
              disabled={index === columnCount - 1}
              onClick={() => props.onReorder(1)}
            >
              →
            </button>
            <button type="button" className="button button-small button-danger-quiet" aria-label={`Delete column ${column.label}`} onClick={props.onDelete}>
              Delete
            </button>
          </div>
        ) : null}
      </header>
      <ul className={`kanban-cards${marker === null ? ' kanban-drop-end' : ''}`} aria-labelledby={headingId} onDragOver={moves.onColumnDragOver(column.id)} onDrop={moves.onDrop(column.id)}>
        {cardIds.map((cardId) => {
          const card = cards.get(cardId) as Card;
          return (
            <li key={cardId} className={marker === cardId ? 'kanban-drop-before' : undefined}>
              <KanbanCard
                card={card}
                members={members}
                lifted={moves.liftedCardId === cardId}
                dragging={moves.dragging === cardId}
                mayMove={mayMove}
                mayAssign={mayMove}
                instructionsId={instructionsId}
                onOpen={() => props.onOpen(card)}
                onAssign={() => props.onAssign(card)}
                onKeyDown={moves.onCardKeyDown(cardId)}
                onDragStart={moves.onDragStart(cardId)}
                onDragOver={moves.onCardDragOver(column.id, cardId)}
                onDragEnd={moves.endDrag}
              />
            </li>
          );
        })}
        {cardIds.length === 0 ? <li className="kanban-empty">{filtering && total > 0 ? 'No card matches.' : 'No cards.'}</li> : null}
      </ul>
      {hasMore ? (
        <button type="button" className="button button-small kanban-more" onClick={props.onMore}>
          More cards in {column.label}
        </button>
      ) : null}
    </section>
  );
}
