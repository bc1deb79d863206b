import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface DialogProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Buttons at the bottom (the dialog's actions). */
  footer?: ReactNode;
  /** A dialog that must not be dismissed by Escape while something runs. */
  busy?: boolean;
}

/**
 * A modal dialog on the browser's own <dialog>: the page behind is inert, Escape closes it, focus
 * moves to the first element marked data-autofocus (else the first focusable one) and goes back
 * to what had it before when the dialog closes.
 */
export function Dialog({ open, title, onClose, children, footer, busy = false }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const returnFocusTo = useRef<Element | null>(null);
  const titleId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element || !open) return;
    returnFocusTo.current = document.activeElement;
    if (!element.open) element.showModal();
    const first = element.querySelector<HTMLElement>('[autofocus], [data-autofocus]') ?? firstFocusable(element);
    first?.focus();
    return () => {
      if (element.open) element.close();
      // Back to what opened the dialog; when that is gone (a revoked key's row), to the page's content.
      const previous = returnFocusTo.current;
      if (previous instanceof HTMLElement && previous.isConnected) previous.focus();
      else document.getElementById('main')?.focus();
    };
  }, [open]);

  if (!open) return null;
  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      <div className="dialog-body">{children}</div>
      {footer ? <div className="dialog-footer">{footer}</div> : null}
    </dialog>
  );
}

const FOCUSABLE = 'input:not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

function firstFocusable(root: HTMLElement): HTMLElement | null {
  return root.querySelector<HTMLElement>(FOCUSABLE);
}
