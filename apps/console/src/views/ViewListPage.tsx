import './views.css';
import { useState, type ComponentType, type ReactNode } from 'react';
import { formatDateTime } from '../app/format';
import { Link, navigate } from '../app/router';
import type { ProcedureInput, ProcedureOutput, TypedProcedure } from '../api/rpc-client';
import type { Items } from '../api/types';
import { useRpcQuery, type RpcQuery } from '../api/use-rpc-query';
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

/** A procedure that lists one kind of view, taking no input. */
export type ViewListProcedure = {
  [Name in TypedProcedure]: ProcedureOutput<Name> extends Items<ModelView> ? (Record<string, never> extends ProcedureInput<Name> ? Name : never) : never;
}[TypedProcedure];

/** A procedure that deletes one thing by its id. */
export type DeleteByIdProcedure = {
  [Name in TypedProcedure]: ProcedureInput<Name> extends { id: string } ? ({ id: string } extends ProcedureInput<Name> ? Name : never) : never;
}[TypedProcedure];

/** The procedure that deletes a view of the kind a list procedure lists: `calendars.list`, `calendars.delete`. */
export type ViewDeleteProcedure<List extends ViewListProcedure> = Extract<DeleteByIdProcedure, List extends `${infer Kind}.list` ? `${Kind}.delete` : never>;

/** One view of the kind a list procedure lists. */
export type ViewOf<List extends ViewListProcedure> = ProcedureOutput<List>['items'][number];

export interface ViewListPageProps<List extends ViewListProcedure> {
  /** "board", "calendar": in titles, buttons and messages. */
  noun: string;
  /** The page's heading: "Boards". */
  title: string;
  intro: string;
  listProcedure: List;
  deleteProcedure: ViewDeleteProcedure<List>;
  /** What deleting one takes with it, in a sentence or two. */
  deleteConsequence: string;
  /** Where one view opens: `/boards/<id>`. */
  pathOf(view: ViewOf<List>): string;
  /** The columns between the model and the creation time. */
  columns: ReadonlyArray<{ header: string; cell(view: ViewOf<List>): ReactNode }>;
  CreateDialog: ComponentType<{ open: boolean; onClose(created?: ViewOf<List>): void }>;
}

/** The list page of one kind of view over a model: its views, creating one (then opening it), deleting one. */
export function ViewListPage<List extends ViewListProcedure>(props: ViewListPageProps<List>) {
  const { noun, title, CreateDialog } = props;
  const { rpc, permissions } = useSignedIn();
  // A list procedure of views takes no input (ViewListProcedure), which TypeScript cannot see for a name still unknown.
  const views: RpcQuery<Items<ViewOf<List>>> = useRpcQuery(props.listProcedure, ...[{} as ProcedureInput<List>]);
  const [creating, setCreating] = useState(false);
  const deleteProcedure: DeleteByIdProcedure = props.deleteProcedure;
  const [deleting, setDeleting] = useState<ViewOf<List>>();
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
          await rpc.call(deleteProcedure, { id: deleting.id });
          await views.reload();
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>{props.deleteConsequence}</p>
      </ConfirmDialog>
    </section>
  );
}
