import { useEffect, useState } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField } from '../forms/fields';
import { useSignedIn } from '../session/session-context';

export interface DeleteColumnDialogProps {
  open: boolean;
  boardId: string;
  column?: { id: string; label: string };
  /** Whether the column holds cards: they need a column to go to. */
  holdsCards: boolean;
  others: ReadonlyArray<{ id: string; label: string }>;
  onClose: (deleted?: boolean) => void;
}

/** Deletes a column; its cards, when it has any, move to the column chosen first. */
export function DeleteColumnDialog({ open, boardId, column, holdsCards, others, onClose }: DeleteColumnDialogProps) {
  const { rpc } = useSignedIn();
  const [target, setTarget] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!open) return;
    setTarget(others[0]?.id ?? '');
    setError(undefined);
  }, [open, others]);

  const confirm = async () => {
    if (!column) return;
    setBusy(true);
    setError(undefined);
    try {
      await rpc.call('kanban.columns.delete', { boardId, id: column.id, ...(holdsCards && target ? { targetColumnId: target } : {}) });
      onClose(true);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title={`Delete ${column?.label ?? 'column'}?`}
      onClose={() => onClose()}
      busy={busy}
      footer={
        <>
          <button type="button" className="button" onClick={() => onClose()} disabled={busy} data-autofocus>
            Cancel
          </button>
          <button type="button" className="button button-danger" onClick={() => void confirm()} disabled={busy || (holdsCards && !target)}>
            {busy ? 'Deleting…' : 'Delete column'}
          </button>
        </>
      }
    >
      <p>The option goes from the field. Records keep their other values.</p>
      {holdsCards ? (
        others.length > 0 ? (
          <SelectField
            label="Move its cards to"
            value={target}
            options={others.map((other) => ({ value: other.id, label: other.label }))}
            onChange={setTarget}
            error={fieldErrorsOf(error).targetColumnId}
          />
        ) : (
          <p className="notice notice-warning">It holds cards and is the only column: add another column to move them to first.</p>
        )
      ) : null}
      <ErrorNotice error={error} />
    </Dialog>
  );
}
