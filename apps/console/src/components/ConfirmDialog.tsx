import { useState, type ReactNode } from 'react';
import { Dialog } from './Dialog';
import { ErrorNotice } from './ErrorNotice';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** Red confirm button, for what cannot be undone. */
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** "Are you sure?" with the action's own words on the button; shows the failure and stays open. */
export function ConfirmDialog({ open, title, children, confirmLabel, danger = false, onConfirm, onClose }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const close = () => {
    setError(undefined);
    onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      close();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title={title}
      onClose={close}
      busy={busy}
      footer={
        <>
          {/* Cancel first and focused: a stray Enter must not destroy anything. */}
          <button type="button" className="button" onClick={close} disabled={busy} data-autofocus>
            Cancel
          </button>
          <button type="button" className={`button ${danger ? 'button-danger' : 'button-primary'}`} onClick={() => void confirm()} disabled={busy}>
            {busy ? 'Working…' : confirmLabel}
          </button>
        </>
      }
    >
      {children}
      <ErrorNotice error={error} />
    </Dialog>
  );
}
