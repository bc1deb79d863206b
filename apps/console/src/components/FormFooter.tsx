export interface FormFooterProps {
  /** The id of the dialog's form, which the submit button submits from outside it. */
  formId: string;
  busy: boolean;
  onCancel: () => void;
  /** The submit button's words, and what it says while the form is being sent. */
  label: string;
  busyLabel: string;
}

/** A form dialog's actions: Cancel, then the form's submit button; both disabled while it is sent. */
export function FormFooter({ formId, busy, onCancel, label, busyLabel }: FormFooterProps) {
  return (
    <>
      <button type="button" className="button" onClick={onCancel} disabled={busy}>
        Cancel
      </button>
      <button type="submit" form={formId} className="button button-primary" disabled={busy}>
        {busy ? busyLabel : label}
      </button>
    </>
  );
}
