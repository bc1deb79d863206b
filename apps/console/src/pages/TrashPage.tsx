import '../trash/trash.css';
import { useMemo, useState } from 'react';
import type { PageProps } from '../app/pages';
import { Link } from '../app/router';
import { useKeysetPages } from '../api/use-keyset-pages';
import { useRpcQuery } from '../api/use-rpc-query';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSignedIn } from '../session/session-context';
import { membersById } from '../trash/deleted-by';
import { TrashTable, asDeletedRecords, type DeletedRecord } from '../trash/TrashTable';

const TRASH_PAGE_SIZE = 50;

/** A model's deleted records: who deleted each and when; restore, and purge for holders of records.purge. */
export default function TrashPage({ params }: PageProps) {
  const key = params.key as string;
  const { rpc, permissions } = useSignedIn();
  const model = useRpcQuery('dataModels.get', { key });
  const organization = useRpcQuery('organizations.get');
  const members = useMemo(() => membersById(organization.data?.members), [organization.data]);
  const trash = useKeysetPages('records.list', { model: key, deleted: 'only', limit: TRASH_PAGE_SIZE });
  const [busyId, setBusyId] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const [status, setStatus] = useState('');
  const [purging, setPurging] = useState<DeletedRecord>();
  const mayPurge = permissions.has('records.purge');
  const recordsPath = `/models/${encodeURIComponent(key)}/records`;

  const restore = async (record: DeletedRecord) => {
    setBusyId(record.id);
    setFailure(undefined);
    try {
      await rpc.call('records.restore', { id: record.id });
      await trash.refresh();
      setStatus(`Restored ${record.title}.`);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusyId(undefined);
    }
  };

  if (model.error) {
    return (
      <section>
        <p>
          <Link to="/models">← Data models</Link>
        </p>
        <ErrorNotice error={model.error} />
      </section>
    );
  }
  const name = model.data?.name ?? key;
  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to={recordsPath}>← {name} records</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">{name}: trash</h1>
      </div>
      <p className="page-intro">
        Deleted records stay here until someone restores them{mayPurge ? ' or deletes them forever' : ''}. A restored record comes back with all its
        values.
      </p>
      <p className="trash-status" role="status" aria-live="polite">
        {status}
      </p>
      <ErrorNotice error={failure ?? trash.error ?? organization.error} />
      {trash.items.length > 0 ? (
        <TrashTable
          modelName={name}
          records={asDeletedRecords(trash.items)}
          members={members}
          mayPurge={mayPurge}
          busyId={busyId}
          onRestore={(record) => void restore(record)}
          onPurge={setPurging}
        />
      ) : trash.loading ? (
        <p role="status">Loading…</p>
      ) : trash.error ? null : (
        <div className="empty-state">
          <p className="empty-state-title">The trash is empty</p>
          <p>Records deleted from {name} appear here, and can be restored.</p>
        </div>
      )}
      {trash.hasMore ? (
        <p>
          <button type="button" className="button" disabled={trash.loading} onClick={() => void trash.loadMore()}>
            Show more
          </button>
        </p>
      ) : null}
      <ConfirmDialog
        open={purging !== undefined}
        title={`Delete ${purging?.title ?? 'record'} forever?`}
        confirmLabel="Delete forever"
        danger
        onConfirm={async () => {
          if (!purging) return;
          await rpc.call('records.delete', { id: purging.id, hard: true });
          await trash.refresh();
          setStatus(`Deleted ${purging.title} forever.`);
        }}
        onClose={() => setPurging(undefined)}
      >
        <p>The record and its values are erased. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
