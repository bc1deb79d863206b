import '../views/views.css';
import { useState } from 'react';
import { formatDateTime } from '../app/format';
import { Link, navigate } from '../app/router';
import type { Items } from '../api/types';
import { useRpcQuery } from '../api/use-rpc-query';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSignedIn } from '../session/session-context';
import { BoardDialog } from '../views/BoardDialog';
import type { Board } from '../views/types';

/** The organization's kanban boards: each shows a model's records in the columns of a single-select field. */
export default function BoardsPage() {
  const { rpc, permissions } = useSignedIn();
  const boards = useRpcQuery<Items<Board>>('kanban.boards.list');
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Board>();
  const mayManage = permissions.has('data-models.manage');

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Boards</h1>
        {mayManage ? (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            Create board
          </button>
        ) : null}
      </div>
      <p className="page-intro">
        A board shows a data model’s records as cards in the columns of one of its single-select fields. Moving a card changes that field.
      </p>
      <ErrorNotice error={boards.error} />
      {boards.data ? (
        boards.data.items.length === 0 ? (
          <p className="empty">No boards yet.</p>
        ) : (
          <div className="table-wrap" role="region" aria-label="Boards" tabIndex={0}>
            <table>
              <caption className="visually-hidden">Boards</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  <th scope="col">Column field</th>
                  <th scope="col">Created</th>
                  {mayManage ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {boards.data.items.map((board) => (
                  <tr key={board.id}>
                    <th scope="row">
                      <Link to={`/boards/${board.id}`}>{board.name}</Link>
                    </th>
                    <td>
                      <code>{board.modelKey}</code>
                    </td>
                    <td>
                      <code>{board.fieldKey}</code>
                    </td>
                    <td>{formatDateTime(board.createdAt)}</td>
                    {mayManage ? (
                      <td>
                        <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(board)} aria-label={`Delete ${board.name}`}>
                          Delete
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : boards.loading ? (
        <p role="status">Loading…</p>
      ) : null}
      <BoardDialog
        open={creating}
        onClose={(created) => {
          setCreating(false);
          if (created) navigate(`/boards/${created.id}`);
        }}
      />
      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete ${deleting?.name ?? 'board'}?`}
        confirmLabel="Delete board"
        danger
        onConfirm={async () => {
          if (!deleting) return;
          await rpc.call('kanban.boards.delete', { id: deleting.id });
          await boards.reload();
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>The board, its card order and its assignments go. The records stay in their model.</p>
      </ConfirmDialog>
    </section>
  );
}
