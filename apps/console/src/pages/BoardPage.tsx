import '../views/views.css';
import { useMemo, useState } from 'react';
import type { SelectOption } from '@mrp/field-validation';
import type { PageProps } from '../app/pages';
import { Link } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import { EmptyState } from '../components/EmptyState';
import { ErrorNotice } from '../components/ErrorNotice';
import type { DataRecord } from '../data-models/types';
import { TextField } from '../forms/fields';
import { RecordFormDialog } from '../records/RecordFormDialog';
import { useModelName } from '../data-models/use-model-name';
import { useSignedIn } from '../session/session-context';
import { AssignDialog } from '../views/AssignDialog';
import { ColumnDialog } from '../views/ColumnDialog';
import { DeleteColumnDialog } from '../views/DeleteColumnDialog';
import { KanbanColumn } from '../views/KanbanColumn';
import type { Card, Member } from '../views/types';
import { useBoard } from '../views/use-board';
import { useCardMoves } from '../views/use-card-moves';
import { useColumnOrder } from '../views/use-column-order';

/** A board: its columns, cards moved by pointer or keyboard (use-card-moves), a filter, assignees, and the record form. */
export default function BoardPage({ params }: PageProps) {
  const boardId = params.id as string;
  const { permissions } = useSignedIn();
  const board = useBoard(boardId);
  const modelKey = board.data?.board.modelKey;
  const modelName = useModelName(modelKey);
  const fieldList = useRpcQuery('dataModels.fields.list', { model: modelKey ?? '' }, { enabled: modelKey !== undefined });
  const organization = useRpcQuery('organizations.get');
  const members = useMemo(() => new Map((organization.data?.members ?? []).map((member) => [member.userId, member] as const)), [organization.data]);

  const [filter, setFilter] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const [editing, setEditing] = useState<Card>();
  const [assigning, setAssigning] = useState<Card>();
  const [columnDialog, setColumnDialog] = useState<{ column?: SelectOption } | null>(null);
  const [deletingColumn, setDeletingColumn] = useState<{ id: string; label: string }>();

  const mayMove = permissions.has('records.update');
  const mayManage = permissions.has('data-models.manage');
  const fields = fieldList.data?.items ?? [];
  const boardField = fields.find((field) => field.key === board.data?.board.fieldKey);
  const columns = useMemo(() => board.data?.columns ?? [], [board.data]);
  const deleteTargets = useMemo(() => columns.filter((column) => column.id !== deletingColumn?.id), [columns, deletingColumn]);
  const moves = useCardMoves({ board, fields, boardField, members, filter, mayMove, onOpen: setEditing, announce: setAnnouncement });
  const columnOrder = useColumnOrder(boardId, columns, board.reload, setAnnouncement);

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
      <ErrorNotice error={moves.moveError ?? columnOrder.error ?? fieldList.error ?? organization.error} />
      {columns.length === 0 ? (
        <EmptyState
          title="No columns yet"
          actions={
            mayManage ? (
              <button type="button" className="button" onClick={() => setColumnDialog({})} disabled={!boardField}>
                Add column
              </button>
            ) : undefined
          }
        >
          The columns are the options of the board’s field{mayManage ? ': add one.' : '; someone who manages data models can add them.'}
        </EmptyState>
      ) : null}
      <div className="kanban-scroll" role="region" aria-label={`${board.data.board.name} columns`} tabIndex={0}>
        <div className="kanban-columns">
          {columns.map((column, columnIndex) => (
            <KanbanColumn
              key={column.id}
              column={column}
              index={columnIndex}
              columnCount={columns.length}
              cardIds={moves.visible.find((candidate) => candidate.id === column.id)?.cardIds ?? []}
              total={board.order.find((candidate) => candidate.id === column.id)?.cardIds.length ?? 0}
              filtering={filter.trim() !== ''}
              cards={board.cards}
              members={members}
              moves={moves}
              mayMove={mayMove}
              mayManage={mayManage}
              hasMore={Boolean(board.cursors[column.id])}
              instructionsId={instructionsId}
              onOpen={setEditing}
              onAssign={setAssigning}
              onRename={() => setColumnDialog({ column: options[columnIndex] })}
              onReorder={(step) => void columnOrder.reorder(column.id, step)}
              onDelete={() => setDeletingColumn(column)}
              onMore={() => void board.loadMore(column.id).catch(moves.setMoveError)}
            />
          ))}
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
