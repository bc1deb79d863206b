import '../data-models/data-models.css';
import '../records/records.css';
import { useCallback, useMemo, useState } from 'react';
import type { PageProps } from '../app/pages';
import { Link } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EmptyState } from '../components/EmptyState';
import { ErrorNotice } from '../components/ErrorNotice';
import { liveFields } from '../data-models/field-types';
import type { DataField, DataRecord } from '../data-models/types';
import { BulkActions } from '../records/BulkActions';
import { storedValue } from '../records/cell-editing';
import { ColumnsMenu } from '../records/ColumnsMenu';
import { FilterPanel } from '../records/FilterPanel';
import { gridLayout, moveColumn, resizeColumn } from '../records/grid-columns';
import { QuickSearch } from '../records/QuickSearch';
import { RecordFormDialog } from '../records/RecordFormDialog';
import { RecordsGrid } from '../records/RecordsGrid';
import { RecordsToolbarTools } from '../records/RecordsToolbarTools';
import { useCellCommit } from '../records/use-cell-commit';
import { useRecordPages } from '../records/use-record-pages';
import { useSelection } from '../records/use-selection';
import { listInputOf, useViewState } from '../records/view-state';
import { useSignedIn } from '../session/session-context';

/** A record with its stored values (expanded relations back to ids), as the record form edits it. */
function storedRecord(record: DataRecord, fields: readonly DataField[]): DataRecord {
  const data = { ...record.data };
  for (const field of fields) if (field.type === 'RELATION' && field.key in data) data[field.key] = storedValue(field, data[field.key]);
  return { ...record, data };
}

/**
 * A model's records as a spreadsheet: typed cells edited in place, a quick search, a filter, columns
 * to hide, order and size, bulk actions; the view lives in the address.
 */
export default function RecordsPage({ params }: PageProps) {
  const key = params.key as string;
  const { rpc, permissions } = useSignedIn();
  const model = useRpcQuery('dataModels.get', { key });
  const fieldList = useRpcQuery('dataModels.fields.list', { model: key });
  const fields = useMemo(() => liveFields(fieldList.data?.items ?? []), [fieldList.data]);
  const view = useViewState();
  const layout = useMemo(() => gridLayout(fields, view.state), [fields, view.state]);
  const expand = useMemo(() => fields.filter((field) => field.type === 'RELATION').map((field) => field.key).join(',') || undefined, [fields]);
  const listInput = useMemo(() => listInputOf(key, view.state, fields), [key, view.state, fields]);
  const pages = useRecordPages({ ...listInput, ...(expand ? { expand } : {}) }, { enabled: fieldList.data !== undefined });
  const selection = useSelection(JSON.stringify(listInput));
  const cells = useCellCommit(fields, expand, pages.replace);
  const [editing, setEditing] = useState<{ record?: DataRecord } | null>(null);
  const [deleting, setDeleting] = useState<DataRecord>();
  const formRecord = useMemo(() => (editing?.record ? storedRecord(editing.record, fields) : undefined), [editing, fields]);

  const onSort = useCallback((column: string) => view.update({ sort: view.state.sort === column ? `-${column}` : column }), [view]);
  const onResize = useCallback((column: string, width: number) => view.update({ widths: resizeColumn(view.state.widths, column, width) }, { replace: true }), [view]);
  const onReorder = useCallback(
    (column: string, before: string) => {
      const keys = layout.all.map((item) => item.key);
      view.update({ order: moveColumn(keys, column, keys.indexOf(before) - keys.indexOf(column)) }, { replace: true });
    },
    [layout, view],
  );

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
  const mayCreate = permissions.has('records.create');
  const mayEdit = permissions.has('records.update');
  const mayDelete = permissions.has('records.delete');
  const narrowed = view.state.q !== undefined || view.state.filter !== undefined;

  return (
    <section aria-labelledby="page-title" className="records-page">
      <div className="records-header">
        <h1 id="page-title">{name} records</h1>
        <Link to={`/models/${encodeURIComponent(key)}`} className="records-fields-link">
          {name}: fields
        </Link>
        {mayCreate ? (
          <button type="button" className="button button-primary button-small" onClick={() => setEditing({})}>
            New record
          </button>
        ) : null}
      </div>

      <div className="records-toolbar" role="group" aria-label="View">
        <QuickSearch view={view} modelName={name} />
        <FilterPanel fields={fields} view={view} />
        <ColumnsMenu layout={layout} view={view} />
        <RecordsToolbarTools modelKey={key} modelName={name} fields={fields} view={view} reload={pages.reload} />
      </div>

      <BulkActions
        modelKey={key}
        fields={fields}
        records={pages.items}
        hasMore={pages.hasMore}
        listInput={listInput}
        selection={selection}
        canEdit={mayEdit}
        canDelete={mayDelete}
        onDone={pages.reload}
      />

      {cells.conflict ? (
        <div role="alert" className="notice notice-warning records-conflict">
          <p>
            Someone else changed <strong>{cells.conflict.record.title}</strong> after it was loaded, so your change to {cells.conflict.field.name} was not
            saved.
          </p>
          <div className="button-row">
            <button type="button" className="button button-small" onClick={() => void cells.reloadConflicted()}>
              Reload {cells.conflict.record.title}
            </button>
            <button type="button" className="button button-small" onClick={cells.dismissConflict}>
              Dismiss
            </button>
          </div>
        </div>
      ) : null}

      <ErrorNotice error={pages.error} />
      {pages.loading ? (
        <p role="status">Loading…</p>
      ) : pages.items.length === 0 && !pages.error ? (
        narrowed ? (
          <EmptyState title="No records match this view.">Change the search or the filter to see more.</EmptyState>
        ) : (
          <EmptyState title="No records yet.">{mayCreate ? 'Add the first one with New record above, or bring a spreadsheet in with Import CSV.' : 'Records added to this model appear here.'}</EmptyState>
        )
      ) : (
        <RecordsGrid
          modelName={name}
          layout={layout}
          records={pages.items}
          hasMore={pages.hasMore}
          busy={pages.busy}
          loadMore={pages.loadMore}
          sort={view.state.sort}
          onSort={onSort}
          onResize={onResize}
          onReorder={onReorder}
          selection={selection}
          canEdit={mayEdit}
          canDelete={mayDelete}
          onOpen={(record) => setEditing({ record })}
          onDelete={setDeleting}
          onEditStart={cells.prepare}
          onCommit={cells.commit}
          cellErrors={cells.cellErrors}
        />
      )}
      <p className="records-count" aria-live="polite">
        {pages.items.length > 0 ? `${pages.items.length.toLocaleString()} record${pages.items.length === 1 ? '' : 's'} loaded${pages.hasMore ? '; more load as you scroll' : ''}` : ''}
      </p>

      <RecordFormDialog
        open={editing !== null}
        modelKey={key}
        modelName={name}
        fields={fields}
        record={formRecord}
        onClose={(saved) => {
          const previous = editing?.record;
          setEditing(null);
          if (!saved) return;
          if (!previous) pages.reload();
          else void cells.reread(previous, expand).then(pages.replace, pages.reload);
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
          pages.remove(new Set([deleting.id]));
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>The record moves to the model’s trash, where someone allowed to delete records can restore it.</p>
      </ConfirmDialog>
    </section>
  );
}
