import '../views/views.css';
import { useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { SelectOption } from '@mrp/field-validation';
import type { PageProps } from '../app/pages';
import { Link } from '../app/router';
import type { Items } from '../api/types';
import { useRpcQuery } from '../api/use-rpc-query';
import { ErrorNotice } from '../components/ErrorNotice';
import type { DataField, DataRecord } from '../data-models/types';
import { TextField } from '../forms/fields';
import { checkRecordData } from '../records/record-form';
import { RecordFormDialog } from '../records/RecordFormDialog';
import { useModelName } from '../data-models/use-model-name';
import { useSignedIn } from '../session/session-context';
import { AssignDialog } from '../views/AssignDialog';
import { cardAfter, findCard, keyboardMove, moveBefore, movesCard, MOVE_KEYS, type ColumnOrder, type MoveKey } from '../views/board-moves';
import { ColumnDialog } from '../views/ColumnDialog';
import { DeleteColumnDialog } from '../views/DeleteColumnDialog';
import { KanbanCard } from '../views/KanbanCard';
import { filterOrder } from '../views/people';
import type { Card, Member, OrganizationWithMembers } from '../views/types';
import { useBoard } from '../views/use-board';

interface Lifted {
  cardId: string;
  /** The board as it was when the card was picked up: Escape and a refusal put it back. */
  before: ColumnOrder[];
}

interface DropTarget {
  column: string;
  before?: string;
}

/** A board: its columns, cards moved by pointer or keyboard, a filter, assignees, and the record form. */
export default function BoardPage({ params }: PageProps) {
  const boardId = params.id as string;
  const { rpc, permissions } = useSignedIn();
  const board = useBoard(boardId);
  const modelKey = board.data?.board.modelKey;
  const modelName = useModelName(modelKey);
  const fieldList = useRpcQuery<Items<DataField>>('dataModels.fields.list', { model: modelKey ?? '' }, { enabled: modelKey !== undefined });
  const organization = useRpcQuery<OrganizationWithMembers>('organizations.get');
  const members = useMemo(() => new Map((organization.data?.members ?? []).map((member) => [member.userId, member] as const)), [organization.data]);

  const [filter, setFilter] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const [moveError, setMoveError] = useState<unknown>();
  const [lifted, setLifted] = useState<Lifted | null>(null);
  const [dragging, setDragging] = useState<string | null>(null);
  const [dropTarget, setDropTarget] = useState<DropTarget | null>(null);
  const [editing, setEditing] = useState<Card>();
  const [assigning, setAssigning] = useState<Card>();
  const [columnDialog, setColumnDialog] = useState<{ column?: SelectOption } | null>(null);
  const [deletingColumn, setDeletingColumn] = useState<{ id: string; label: string }>();
  const [columnError, setColumnError] = useState<unknown>();
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

  const mayMove = permissions.has('records.update');
  const mayManage = permissions.has('data-models.manage');
  const fields = fieldList.data?.items ?? [];
  const boardField = fields.find((field) => field.key === board.data?.board.fieldKey);
  const columns = useMemo(() => board.data?.columns ?? [], [board.data]);
  const deleteTargets = useMemo(() => columns.filter((column) => column.id !== deletingColumn?.id), [columns, deletingColumn]);
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

  /**
   * Sends a move. The change of the board's field is checked with the record rules first; a
   * refusal, the browser's or the server's, puts the card back and is shown with its request id.
   */
  const sendMove = async (cardId: string, column: string, before: string | undefined, restore: ColumnOrder[]) => {
    setMoveError(undefined);
    const card = board.cards.get(cardId);
    if (card && boardField && card.record.data[boardField.key] !== column) {
      const checked = checkRecordData(fields, { [boardField.key]: column }, 'update');
      if (checked.errors.length > 0) {
        board.show(restore);
        setMoveError(new Error(checked.errors.map((error) => error.message).join(' ')));
        setAnnouncement(`${titleOf(cardId)} could not be moved and is back in ${whereIs(restore, cardId)}.`);
        return;
      }
    }
    try {
      await board.move(cardId, column, before, restore);
    } catch (failure) {
      setMoveError(failure);
      setAnnouncement(`The move of ${titleOf(cardId)} was refused; it is back in ${whereIs(restore, cardId)}.`);
    }
  };

  const onCardKeyDown = (cardId: string) => (event: KeyboardEvent<HTMLElement>) => {
    if (event.target !== event.currentTarget) return;
    const card = board.cards.get(cardId);
    if (!card) return;
    if (lifted?.cardId === cardId) {
      if (MOVE_KEYS.includes(event.key)) {
        event.preventDefault();
        const move = keyboardMove(visible, cardId, event.key as MoveKey);
        if (!move) {
          setAnnouncement(`${titleOf(cardId)} cannot go further that way.`);
          return;
        }
        const next = moveBefore(board.order, cardId, move.column, move.before);
        refocus.current = cardId;
        board.show(next);
        setAnnouncement(`${titleOf(cardId)}: ${whereIs(filterOrder(next, board.cards, members, filter), cardId)}.`);
      } else if (event.key === ' ' || event.key === 'Enter') {
        event.preventDefault();
        const place = findCard(board.order, cardId);
        setLifted(null);
        if (!place) return;
        const before = cardAfter(visible, cardId);
        setAnnouncement(`${titleOf(cardId)} dropped in ${whereIs(visible, cardId)}.`);
        if (movesCard(lifted.before, cardId, place.column, cardAfter(board.order, cardId))) void sendMove(cardId, place.column, before, lifted.before);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        refocus.current = cardId;
        board.show(lifted.before);
        setLifted(null);
        setAnnouncement(`Move cancelled. ${titleOf(cardId)} is back in ${whereIs(lifted.before, cardId)}.`);
      } else if (event.key === 'Tab') {
        board.show(lifted.before);
        setLifted(null);
        setAnnouncement(`Move cancelled.`);
      }
      return;
    }
    if (event.key === 'Enter') {
      event.preventDefault();
      setEditing(card);
    } else if (event.key === ' ' && mayMove && !lifted) {
      event.preventDefault();
      setMoveError(undefined);
      setLifted({ cardId, before: board.order });
      setAnnouncement(`${titleOf(cardId)} picked up, in ${whereIs(visible, cardId)}. Arrow keys move it, Space drops it, Escape cancels.`);
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
    const dragging = draggedCard.current;
    if (!dragging) return;
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer.dropEffect = 'move';
    const box = event.currentTarget.getBoundingClientRect();
    const cardIds = (visible.find((candidate) => candidate.id === column)?.cardIds ?? []).filter((id) => id !== dragging);
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
    setAnnouncement(`${titleOf(cardId)} moved to ${labelOf(target.column)}.`);
    void sendMove(cardId, target.column, target.before, restore);
  };

  const reorderColumn = async (columnId: string, step: -1 | 1) => {
    const ids = columns.map((column) => column.id);
    const at = ids.indexOf(columnId);
    const to = at + step;
    if (to < 0 || to >= ids.length) return;
    [ids[at], ids[to]] = [ids[to] as string, ids[at] as string];
    setColumnError(undefined);
    try {
      await rpc.call('kanban.columns.reorder', { boardId, ids });
      await board.reload();
      setAnnouncement(`Columns in order: ${ids.map(labelOf).join(', ')}.`);
    } catch (failure) {
      setColumnError(failure);
    }
  };

  if (board.error) {
    return (
      <section>
        <p>
          <Link to="/boards">← Boards</Link>
        </p>
        <ErrorNotice error={board.error} />
      </section>
    );
  }
  if (!board.data) return <p role="status">Loading…</p>;
  const options: SelectOption[] = columns.map((column) => ({ value: column.id, label: column.label, ...(column.color ? { color: column.color } : {}) }));
  const instructionsId = 'kanban-instructions';

  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to="/boards">← Boards</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">{board.data.board.name}</h1>
        {mayManage ? (
          <button type="button" className="button" onClick={() => setColumnDialog({})} disabled={!boardField}>
            Add column
          </button>
        ) : null}
      </div>
      <p className="page-intro">
        Cards are records of <Link to={`/models/${encodeURIComponent(board.data.board.modelKey)}/records`}>{modelName}</Link>; the columns are the options of its{' '}
        <code>{board.data.board.fieldKey}</code> field.
      </p>
      <p id={instructionsId} className="visually-hidden">
        Enter opens the record. Space picks the card up; then the arrow keys move it within its column or to the next column, Space drops it and Escape cancels.
      </p>
      <div className="board-toolbar">
        <TextField label="Filter cards" hint="By title or assignee." type="search" value={filter} onChange={setFilter} />
      </div>
      <p className="visually-hidden" aria-live="assertive" role="status">
        {announcement}
      </p>
      <ErrorNotice error={moveError ?? columnError ?? fieldList.error ?? organization.error} />
      {columns.length === 0 ? <p className="empty">The field has no options: add a column.</p> : null}
      <div className="kanban-scroll" role="region" aria-label={`${board.data.board.name} columns`} tabIndex={0}>
        <div className="kanban-columns">
          {columns.map((column, columnIndex) => {
            const cardIds = visible.find((candidate) => candidate.id === column.id)?.cardIds ?? [];
            const total = board.order.find((candidate) => candidate.id === column.id)?.cardIds.length ?? 0;
            const marker = dragging && dropTarget?.column === column.id ? (dropTarget.before ?? null) : undefined;
            const headingId = `column-${columnIndex}-title`;
            return (
              <section key={column.id} className={`kanban-column${marker !== undefined ? ' kanban-column-target' : ''}`} aria-labelledby={headingId} data-column-id={column.id}>
                <header className="kanban-column-head">
                  <h2 id={headingId}>
                    {column.label} <span className="kanban-count">{filter.trim() ? `${cardIds.length} of ${total}` : total}</span>
                  </h2>
                  {mayManage ? (
                    <div className="button-row kanban-column-actions">
                      <button type="button" className="button button-small" aria-label={`Rename column ${column.label}`} onClick={() => setColumnDialog({ column: options[columnIndex] })}>
                        Rename
                      </button>
                      <button type="button" className="button button-small" aria-label={`Move column ${column.label} left`} disabled={columnIndex === 0} onClick={() => void reorderColumn(column.id, -1)}>
                        ←
                      </button>
                      <button
                        type="button"
                        className="button button-small"
                        aria-label={`Move column ${column.label} right`}
                        disabled={columnIndex === columns.length - 1}
                        onClick={() => void reorderColumn(column.id, 1)}
                      >
                        →
                      </button>
                      <button type="button" className="button button-small button-danger-quiet" aria-label={`Delete column ${column.label}`} onClick={() => setDeletingColumn(column)}>
                        Delete
                      </button>
                    </div>
                  ) : null}
                </header>
                <ul className={`kanban-cards${marker === null ? ' kanban-drop-end' : ''}`} aria-labelledby={headingId} onDragOver={onColumnDragOver(column.id)} onDrop={onDrop(column.id)}>
                  {cardIds.map((cardId) => {
                    const card = board.cards.get(cardId) as Card;
                    return (
                      <li key={cardId} className={marker === cardId ? 'kanban-drop-before' : undefined}>
                        <KanbanCard
                          card={card}
                          members={members}
                          lifted={lifted?.cardId === cardId}
                          dragging={dragging === cardId}
                          mayMove={mayMove}
                          mayAssign={mayMove}
                          instructionsId={instructionsId}
                          onOpen={() => setEditing(card)}
                          onAssign={() => setAssigning(card)}
                          onKeyDown={onCardKeyDown(cardId)}
                          onDragStart={onDragStart(cardId)}
                          onDragOver={onCardDragOver(column.id, cardId)}
                          onDragEnd={endDrag}
                        />
                      </li>
                    );
                  })}
                  {cardIds.length === 0 ? <li className="kanban-empty">{filter.trim() && total > 0 ? 'No card matches.' : 'No cards.'}</li> : null}
                </ul>
                {board.cursors[column.id] ? (
                  <button type="button" className="button button-small kanban-more" onClick={() => void board.loadMore(column.id).catch(setMoveError)}>
                    More cards in {column.label}
                  </button>
                ) : null}
              </section>
            );
          })}
        </div>
      </div>

      {fieldList.data ? (
        <RecordFormDialog
          open={editing !== undefined}
          modelKey={board.data.board.modelKey}
          modelName={modelName ?? board.data.board.modelKey}
          fields={fields}
          record={editing?.record}
          onClose={(saved?: DataRecord) => {
            const before = editing;
            setEditing(undefined);
            if (!saved || !before) return;
            if (boardField && saved.data[boardField.key] !== before.record.data[boardField.key]) void board.reload();
            else board.updateCard(saved.id, { record: saved });
          }}
        />
      ) : null}
      <AssignDialog
        open={assigning !== undefined}
        boardId={boardId}
        card={assigning}
        members={organization.data?.members ?? ([] as Member[])}
        onClose={(userIds) => {
          if (assigning && userIds) board.updateCard(assigning.record.id, { assigneeUserIds: userIds });
          setAssigning(undefined);
        }}
      />
      {boardField ? (
        <ColumnDialog
          open={columnDialog !== null}
          boardId={boardId}
          config={boardField.config}
          options={options}
          column={columnDialog?.column}
          onClose={(saved) => {
            setColumnDialog(null);
            if (saved) {
              void board.reload();
              void fieldList.reload();
            }
          }}
        />
      ) : null}
      <DeleteColumnDialog
        open={deletingColumn !== undefined}
        boardId={boardId}
        column={deletingColumn}
        holdsCards={deletingColumn ? (board.order.find((column) => column.id === deletingColumn.id)?.cardIds.length ?? 0) > 0 || Boolean(board.cursors[deletingColumn.id]) : false}
        others={deleteTargets}
        onClose={(deleted) => {
          setDeletingColumn(undefined);
          if (deleted) {
            void board.reload();
            void fieldList.reload();
          }
        }}
      />
    </section>
  );
}
