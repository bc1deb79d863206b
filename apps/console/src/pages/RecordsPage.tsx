import '../data-models/data-models.css';
import { useMemo, useState } from 'react';
import type { FilterNode } from '@mrp/field-validation';
import { formatDateTime } from '../app/format';
import type { PageProps } from '../app/pages';
import { Link } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import type { Items } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { isSortable, liveFields } from '../data-models/field-types';
import type { DataField, DataModel, DataRecord, RecordPage } from '../data-models/types';
import { checkFilter, filterTargets, newGroup, type GroupDraft } from '../records/filter-builder';
import { FilterBuilder } from '../records/FilterBuilder';
import { formatValue } from '../records/format-value';
import { currentCursor, FIRST_PAGE, nextPage, pageNumber, previousPage, type Paging } from '../records/paging';
import { RecordFormDialog } from '../records/RecordFormDialog';
import { useSignedIn } from '../session/session-context';

const PAGE_SIZES = [10, 25, 50, 100];
const DEFAULT_SORT = '-createdAt';

/** A model's records: keyset pages, sort by a column, a filter builder; create, edit, delete. */
export default function RecordsPage({ params }: PageProps) {
  const key = params.key as string;
  const { rpc, permissions } = useSignedIn();
  const model = useRpcQuery<DataModel>('dataModels.get', { key });
  const fieldList = useRpcQuery<Items<DataField>>('dataModels.fields.list', { model: key });
  const fields = useMemo(() => liveFields(fieldList.data?.items ?? []), [fieldList.data]);
  const targets = useMemo(() => filterTargets(fields), [fields]);

  const [sort, setSort] = useState(DEFAULT_SORT);
  const [limit, setLimit] = useState(25);
  const [paging, setPaging] = useState<Paging>(FIRST_PAGE);
  const [draft, setDraft] = useState<GroupDraft>(() => newGroup('all'));
  const [filter, setFilter] = useState<FilterNode>();
  const [filterErrors, setFilterErrors] = useState<Record<string, string>>({});
  const [filterProblems, setFilterProblems] = useState<string[]>([]);
  const [editing, setEditing] = useState<{ record?: DataRecord } | null>(null);
  const [deleting, setDeleting] = useState<DataRecord>();

  const cursor = currentCursor(paging);
  const records = useRpcQuery<RecordPage>(
    'records.list',
    { model: key, limit, sort, ...(cursor ? { cursor } : {}), ...(filter ? { filter } : {}) },
    { enabled: fieldList.data !== undefined },
  );

  const applyFilter = () => {
    const checked = checkFilter(draft, targets, fields);
    setFilterErrors(checked.errors);
    setFilterProblems(checked.general.map((problem) => problem.message));
    if (Object.keys(checked.errors).length > 0 || checked.general.length > 0) return;
    setFilter(checked.tree);
    setPaging(FIRST_PAGE);
  };
  const clearFilter = () => {
    setDraft(newGroup('all'));
    setFilterErrors({});
    setFilterProblems([]);
    setFilter(undefined);
    setPaging(FIRST_PAGE);
  };
  const sortBy = (column: string) => {
    setSort((current) => (current === column ? `-${column}` : column));
    setPaging(FIRST_PAGE);
  };

  if (model.error || fieldList.error) {
    return (
      <section>
        <p>
          <Link to="/models">← Data models</Link>
        </p>
        <ErrorNotice error={model.error ?? fieldList.error} />
      </section>
    );
  }
  if (!model.data || !fieldList.data) return <p role="status">Loading…</p>;
  const name = model.data.name;
  const columns = fields.filter((field) => field.key !== 'title');
  const mayEdit = permissions.has('records.update');
  const mayDelete = permissions.has('records.delete');
  const conditionCount = countConditions(draft);

  const header = (column: string, label: string, sortable: boolean) => {
    const direction = sort === column ? 'ascending' : sort === `-${column}` ? 'descending' : undefined;
    return (
      <th scope="col" key={column} aria-sort={direction ?? (sortable ? 'none' : undefined)}>
        {sortable ? (
          <button type="button" className="sort-button" onClick={() => sortBy(column)}>
            {label}
            <span aria-hidden="true">{direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ''}</span>
            <span className="visually-hidden">{direction ? `, sorted ${direction}` : ', sort'}</span>
          </button>
        ) : (
          label
        )}
      </th>
    );
  };

  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to={`/models/${encodeURIComponent(key)}`}>← {name}: fields</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">{name} records</h1>
        {permissions.has('records.create') ? (
          <button type="button" className="button button-primary" onClick={() => setEditing({})}>
            New record
          </button>
        ) : null}
      </div>

      <details className="card filter-panel" open={conditionCount > 0 || undefined}>
        <summary>Filter{filter ? ' (applied)' : ''}</summary>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            applyFilter();
          }}
          noValidate
        >
          <FilterBuilder root={draft} onChange={setDraft} targets={targets} errors={filterErrors} />
          {filterProblems.length > 0 ? (
            <div role="alert" className="notice notice-error">
              {filterProblems.map((problem) => (
                <p key={problem}>{problem}</p>
              ))}
            </div>
          ) : null}
          <div className="button-row">
            <button type="submit" className="button button-primary">
              Apply filter
            </button>
            <button type="button" className="button" onClick={clearFilter}>
              Clear filter
            </button>
          </div>
        </form>
      </details>

      <ErrorNotice error={records.error} />
      {records.data ? (
        records.data.items.length === 0 ? (
          <p className="empty">{filter ? 'No records match this filter.' : pageNumber(paging) > 1 ? 'No more records.' : 'No records yet.'}</p>
        ) : (
          <div className="table-wrap" role="region" aria-label={`${name} records`} tabIndex={0}>
            <table aria-busy={records.loading || undefined}>
              <caption className="visually-hidden">
                {name} records, page {pageNumber(paging)}
              </caption>
              <thead>
                <tr>
                  {header('title', 'Title', true)}
                  {columns.map((field) => header(field.key, field.name, isSortable(field)))}
                  {header('createdAt', 'Created', true)}
                  {mayEdit || mayDelete ? <th scope="col" className="row-actions">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {records.data.items.map((record) => (
                  <tr key={record.id}>
                    <th scope="row" className="cell-clip">
                      {record.title}
                    </th>
                    {columns.map((field) => (
                      <td key={field.key} className="cell-clip">
                        {formatValue(field, record.data[field.key])}
                      </td>
                    ))}
                    <td>{formatDateTime(record.createdAt)}</td>
                    {mayEdit || mayDelete ? (
                      <td className="row-actions">
                        <div className="button-row">
                          {mayEdit ? (
                            <button type="button" className="button button-small" onClick={() => setEditing({ record })} aria-label={`Edit ${record.title}`}>
                              Edit
                            </button>
                          ) : null}
                          {mayDelete ? (
                            <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(record)} aria-label={`Delete ${record.title}`}>
                              Delete
                            </button>
                          ) : null}
                        </div>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : records.loading ? (
        <p role="status">Loading…</p>
      ) : null}

      <nav className="pager" aria-label="Pages of records">
        <button type="button" className="button" disabled={pageNumber(paging) === 1} onClick={() => setPaging(previousPage(paging))}>
          Previous page
        </button>
        <span aria-live="polite">Page {pageNumber(paging)}</span>
        <button
          type="button"
          className="button"
          disabled={!records.data?.nextCursor}
          onClick={() => records.data?.nextCursor && setPaging(nextPage(paging, records.data.nextCursor))}
        >
          Next page
        </button>
        <span className="pager-size">
          <label htmlFor="records-page-size">Per page</label>
          <select
            id="records-page-size"
            value={limit}
            onChange={(event) => {
              setLimit(Number(event.target.value));
              setPaging(FIRST_PAGE);
            }}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </span>
      </nav>

      <RecordFormDialog
        open={editing !== null}
        modelKey={key}
        modelName={name}
        fields={fields}
        record={editing?.record}
        onClose={(saved) => {
          const wasNew = editing?.record === undefined;
          setEditing(null);
          if (!saved) return;
          if (wasNew && pageNumber(paging) > 1) setPaging(FIRST_PAGE);
          else void records.reload();
        }}
      />
      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete ${deleting?.title ?? 'record'}?`}
        confirmLabel="Delete record"
        danger
        onConfirm={async () => {
          if (!deleting) return;
          await rpc.call('records.delete', { id: deleting.id });
          await records.reload();
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>The record disappears from lists and the API. An administrator can restore it.</p>
      </ConfirmDialog>
    </section>
  );
}

function countConditions(group: GroupDraft): number {
  return group.children.reduce((count, child) => count + (child.kind === 'group' ? countConditions(child) : 1), 0);
}
