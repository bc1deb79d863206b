import './views.css';
import { useState, type ComponentType, type ReactNode } from 'react';
import { formatDateTime } from '../app/format';
import { Link, navigate } from '../app/router';
import type { Items } from '../api/types';
import { useRpcQuery } from '../api/use-rpc-query';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { EmptyState } from '../components/EmptyState';
import { useSignedIn } from '../session/session-context';

/** What every view over a model has: boards and calendars alike. */
export interface ModelView {
  id: string;
  name: string;
  modelKey: string;
  createdAt: string;
}

export interface ViewListPageProps<T extends ModelView> {
  /** "board", "calendar": in titles, buttons and messages. */
  noun: string;
  /** The page's heading: "Boards". */
  title: string;
  intro: string;
  listProcedure: string;
  deleteProcedure: string;
  /** What deleting one takes with it, in a sentence or two. */
  deleteConsequence: string;
  /** Where one view opens: `/boards/<id>`. */
  pathOf(view: T): string;
  /** The columns between the model and the creation time. */
  columns: ReadonlyArray<{ header: string; cell(view: T): ReactNode }>;
  CreateDialog: ComponentType<{ open: boolean; onClose(created?: T): void }>;
}

/** The list page of one kind of view over a model: its views, creating one (then opening it), deleting one. */
export function ViewListPage<T extends ModelView>(props: ViewListPageProps<T>) {
  const { noun, title, CreateDialog } = props;
  const { rpc, permissions } = useSignedIn();
  const views = useRpcQuery<Items<T>>(props.listProcedure);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<T>();
  const mayManage = permissions.has('data-models.manage');

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">{title}</h1>
        {mayManage ? (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            Create {noun}
          </button>
        ) : null}
      </div>
      <p className="page-intro">{props.intro}</p>
      <ErrorNotice error={views.error} />
      {views.data ? (
        views.data.items.length === 0 ? (
          <EmptyState
            title={`No ${title.toLowerCase()} yet.`}
            actions={
              mayManage ? (
                <button type="button" className="button" onClick={() => setCreating(true)}>
                  Create your first {noun}
                </button>
              ) : undefined
            }
          >
            {mayManage ? `Create one to see a data model’s records as a ${noun}.` : `Someone who manages data models can create one.`}
          </EmptyState>
        ) : (
          <div className="table-wrap" role="region" aria-label={title} tabIndex={0}>
            <table>
              <caption className="visually-hidden">{title}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  {props.columns.map((column) => (
                    <th scope="col" key={column.header}>
                      {column.header}
                    </th>
                  ))}
                  <th scope="col">Created</th>
                  {mayManage ? <th scope="col" className="row-actions">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {views.data.items.map((view) => (
                  <tr key={view.id}>
                    <th scope="row">
                      <Link to={props.pathOf(view)}>{view.name}</Link>
                    </th>
                    <td>
                      <code>{view.modelKey}</code>
                    </td>
                    {props.columns.map((column) => (
                      <td key={column.header}>{column.cell(view)}</td>
                    ))}
                    <td>{formatDateTime(view.createdAt)}</td>
                    {mayManage ? (
                      <td className="row-actions">
                        <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(view)} aria-label={`Delete ${view.name}`}>
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
      ) : views.loading ? (
        <p role="status">Loading…</p>
      ) : null}
      <CreateDialog
        open={creating}
        onClose={(created) => {
          setCreating(false);
          if (created) navigate(props.pathOf(created));
        }}
      />
      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete ${deleting?.name ?? noun}?`}
        confirmLabel={`Delete ${noun}`}
        danger
        onConfirm={async () => {
          if (!deleting) return;
          await rpc.call(props.deleteProcedure, { id: deleting.id });
          await views.reload();
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>{props.deleteConsequence}</p>
      </ConfirmDialog>
    </section>
  );
}
