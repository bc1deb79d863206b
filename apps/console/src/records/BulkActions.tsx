import { useState } from 'react';
import { formatCount } from '../app/format';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField } from '../forms/fields';
import type { DataField, DataRecord } from '../data-models/types';
import { useSignedIn } from '../session/session-context';
import { deleteRecords, matchingIds, MAX_BULK_RECORDS, setFieldOnRecords } from './bulk';
import { cellValueOf, checkCell, isInlineEditable } from './cell-editing';
import { formValuesOf, type FormValue } from './record-form';
import { RecordValueInput } from './RecordValueInput';
import type { RecordSelection } from './use-selection';
import type { RecordListInput } from './view-state';

interface BulkActionsProps {
  modelKey: string;
  fields: DataField[];
  records: DataRecord[];
  hasMore: boolean;
  listInput: RecordListInput;
  selection: RecordSelection;
  canEdit: boolean;
  canDelete: boolean;
  /** After a bulk change: the grid loads again. */
  onDone(): void;
}

type Action = 'delete' | 'edit';

const records = (count: number) => `${formatCount(count)} record${count === 1 ? '' : 's'}`;

/**
 * What to do with the ticked rows, or with every record the view matches: delete them (to the
 * trash) or set one field on all of them. Each confirms with the number of records first.
 */
export function BulkActions({ modelKey, fields, records: loaded, hasMore, listInput, selection, canEdit, canDelete, onDone }: BulkActionsProps) {
  const { rpc } = useSignedIn();
  const [pending, setPending] = useState<{ action: Action; ids: string[]; capped: boolean } | null>(null);
  const [resolving, setResolving] = useState(false);
  const [error, setError] = useState<unknown>();
  if (selection.count === 0 && !selection.allMatching) return null;

  const begin = async (action: Action) => {
    setError(undefined);
    if (!selection.allMatching) {
      setPending({ action, ids: [...selection.ids], capped: false });
      return;
    }
    setResolving(true);
    try {
      const found = await matchingIds(rpc, listInput);
      setPending({ action, ...found });
    } catch (failure) {
      setError(failure);
    } finally {
      setResolving(false);
    }
  };
  const finish = () => {
    setPending(null);
    selection.clear();
    onDone();
  };
  const editable = fields.filter((field) => field.key !== 'title' && isInlineEditable(field));

  return (
    <div className="bulk-bar" role="region" aria-label="Selected records">
      <span aria-live="polite">{selection.allMatching ? 'All matching records selected' : `${records(selection.count)} selected`}</span>
      {!selection.allMatching && hasMore && selection.allLoadedSelected(loaded) ? (
        <button type="button" className="button button-small" onClick={() => selection.selectAllMatching(loaded)}>
          Select all matching the view
        </button>
      ) : null}
      {canEdit && editable.length > 0 ? (
        <button type="button" className="button button-small" disabled={resolving} onClick={() => void begin('edit')}>
          Edit a field…
        </button>
      ) : null}
      {canDelete ? (
        <button type="button" className="button button-small button-danger-quiet" disabled={resolving} onClick={() => void begin('delete')}>
          Delete…
        </button>
      ) : null}
      <button type="button" className="button button-small" onClick={selection.clear}>
        Clear selection
      </button>
      {resolving ? <span role="status">Counting the matching records…</span> : null}
      <ErrorNotice error={error} />

      <ConfirmDialog
        open={pending?.action === 'delete'}
        title={`Delete ${records(pending?.ids.length ?? 0)}?`}
        confirmLabel={`Delete ${records(pending?.ids.length ?? 0)}`}
        danger
        onConfirm={async () => {
          await deleteRecords(rpc, pending?.ids ?? []);
          finish();
        }}
        onClose={() => setPending(null)}
      >
        <p>They move to the model’s trash, where someone allowed to delete records can restore them.</p>
        {pending?.capped ? <p>Only the first {formatCount(MAX_BULK_RECORDS)} matching records are included; narrow the view for the rest.</p> : null}
      </ConfirmDialog>
      {pending?.action === 'edit' ? (
        <BulkEditDialog
          modelKey={modelKey}
          fields={fields}
          editable={editable}
          ids={pending.ids}
          capped={pending.capped}
          onClose={(saved) => (saved ? finish() : setPending(null))}
        />
      ) : null}
    </div>
  );
}

interface BulkEditDialogProps {
  modelKey: string;
  fields: DataField[];
  editable: DataField[];
  ids: string[];
  capped: boolean;
  onClose(saved: boolean): void;
}

/** One field and one value for all the records; the value is checked by the field's rules before anything is sent. */
function BulkEditDialog({ modelKey, fields, editable, ids, capped, onClose }: BulkEditDialogProps) {
  const { rpc } = useSignedIn();
  const [key, setKey] = useState(editable[0]?.key ?? '');
  const field = editable.find((candidate) => candidate.key === key) as DataField;
  const [draft, setDraft] = useState<FormValue>(() => formValuesOf([field])[field.key] ?? '');
  const [invalid, setInvalid] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const choose = (next: string) => {
    const chosen = editable.find((candidate) => candidate.key === next) as DataField;
    setKey(next);
    setDraft(formValuesOf([chosen])[chosen.key] ?? '');
    setInvalid(undefined);
  };
  const save = async () => {
    const value = cellValueOf(field, draft);
    const refusal = checkCell(fields, field, value);
    setInvalid(refusal);
    if (refusal) return;
    setBusy(true);
    setError(undefined);
    try {
      await setFieldOnRecords(rpc, modelKey, ids, field.key, value);
      onClose(true);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      title={`Edit ${records(ids.length)}`}
      onClose={() => onClose(false)}
      busy={busy}
      footer={
        <>
          <button type="button" className="button" onClick={() => onClose(false)} disabled={busy}>
            Cancel
          </button>
          <button type="button" className="button button-primary" onClick={() => void save()} disabled={busy}>
            {busy ? 'Saving…' : `Set ${field.name} on ${records(ids.length)}`}
          </button>
        </>
      }
    >
      <SelectField label="Field" value={key} options={editable.map((candidate) => ({ value: candidate.key, label: candidate.name }))} onChange={choose} data-autofocus />
      <RecordValueInput key={field.key} field={field} value={draft} onChange={setDraft} error={invalid} />
      {capped ? <p>Only the first {formatCount(MAX_BULK_RECORDS)} matching records are included; narrow the view for the rest.</p> : null}
      <ErrorNotice error={error} />
    </Dialog>
  );
}
