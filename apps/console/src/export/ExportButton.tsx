import './export.css';
import { useState } from 'react';
import { RpcError } from '../api/rpc-error';
import { ErrorNotice } from '../components/ErrorNotice';
import type { RecordsToolProps } from '../records/RecordsToolbarTools';
import { useSignedIn } from '../session/session-context';
import { loadStoredSession } from '../session/session-storage';
import { downloadBlob } from './download-file';
import { exportFileName, exportPath } from './export-request';

/** The export's refusal in the contract's shape, for the error notice. */
async function refusalOf(response: Response): Promise<RpcError> {
  const body = (await response.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
  return new RpcError({
    code: body?.error?.code ?? 'bad_response',
    message: body?.error?.message ?? `HTTP ${response.status}`,
    status: response.status,
    requestId: response.headers.get('X-Request-Id') ?? '',
  });
}

/**
 * "Export CSV": the grid's view (search, filter, sort, visible columns) downloaded through the
 * export route, which streams every matching record, not only the loaded pages.
 */
export function ExportButton({ modelKey, fields, view }: Pick<RecordsToolProps, 'modelKey' | 'fields' | 'view'>) {
  const { organizationId } = useSignedIn();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();

  const download = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      const { token } = loadStoredSession();
      const response = await fetch(exportPath(modelKey, view.state, fields, 'csv'), {
        headers: { Authorization: `Bearer ${token ?? ''}`, ...(organizationId ? { 'X-Organization-Id': organizationId } : {}) },
      });
      if (!response.ok) throw await refusalOf(response);
      downloadBlob(exportFileName(modelKey, 'csv'), await response.blob());
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" className="button button-small" onClick={() => void download()} disabled={busy} title="Download the records of this view as CSV">
        {busy ? 'Exporting…' : 'Export CSV'}
      </button>
      {failure ? <ErrorNotice error={failure} className="records-tool-error" /> : null}
    </>
  );
}
