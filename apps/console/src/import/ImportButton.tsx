import { lazy, Suspense, useState } from 'react';
import type { RecordsToolProps } from '../records/RecordsToolbarTools';
import { useSignedIn } from '../session/session-context';

// The parser, the checks and the dialog load when someone imports, never with the grid.
const ImportDialog = lazy(() => import('./ImportDialog'));

/** "Import CSV" in the records toolbar, for people who may create records. */
export function ImportButton({ modelKey, modelName, fields, reload }: RecordsToolProps) {
  const { permissions } = useSignedIn();
  const [open, setOpen] = useState(false);
  if (!permissions.has('records.create')) return null;
  return (
    <>
      <button type="button" className="button button-small" onClick={() => setOpen(true)}>
        Import CSV
      </button>
      {open ? (
        <Suspense fallback={<span role="status">Loading the importer…</span>}>
          <ImportDialog
            modelKey={modelKey}
            modelName={modelName}
            fields={fields}
            onClose={(imported) => {
              setOpen(false);
              if (imported > 0) reload();
            }}
          />
        </Suspense>
      ) : null}
    </>
  );
}
