import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { SelectOption } from '@mrp/field-validation';
import { fieldErrorsOf } from '../api/rpc-error';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../forms/fields';
import { useFocusFirstInvalid } from '../forms/focus-invalid';
import { useSignedIn } from '../session/session-context';
import { checkColumn, columnIdFromLabel, type ColumnErrors } from './column-form';
import { FormFooter } from '../components/FormFooter';

export interface ColumnDialogProps {
  open: boolean;
  boardId: string;
  /** The board field's settings and its options (the columns) as they are. */
  config: Record<string, unknown>;
  options: readonly SelectOption[];
  /** The column to rename; adding one without. */
  column?: SelectOption;
  onClose: (saved?: boolean) => void;
}

/** Adds a column (an option of the board's field, last) or renames one. */
export function ColumnDialog({ open, boardId, config, options, column, onClose }: ColumnDialogProps) {
  const { rpc } = useSignedIn();
  const adding = column === undefined;
  const [label, setLabel] = useState('');
  const [id, setId] = useState('');
  const [idTouched, setIdTouched] = useState(false);
  const [errors, setErrors] = useState<ColumnErrors>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const focusInvalid = useFocusFirstInvalid(form);

  useEffect(() => {
    if (!open) return;
    setLabel(column?.label ?? '');
    setId(column?.value ?? '');
    setIdTouched(false);
    setErrors({});
    setError(undefined);
  }, [open, column]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const changed = { value: adding ? id : column.value, label: label.trim() };
    const after = adding ? [...options, changed] : options.map((option) => (option.value === column.value ? { ...option, label: changed.label } : option));
    const found = checkColumn(config, after, adding ? options.length : options.findIndex((option) => option.value === column.value));
    setErrors(found);
    setError(undefined);
    if (Object.keys(found).length > 0) {
      focusInvalid();
      return;
    }
    setBusy(true);
    try {
      if (adding) await rpc.call('kanban.columns.create', { boardId, id, label: changed.label });
      else await rpc.call('kanban.columns.update', { boardId, id: column.value, label: changed.label });
      onClose(true);
    } catch (failure) {
      setError(failure);
      setErrors(fieldErrorsOf(failure));
      focusInvalid();
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title={adding ? 'Add column' : `Rename ${column.label}`}
      onClose={() => onClose()}
      busy={busy}
      footer={<FormFooter formId="column-form" busy={busy} onCancel={() => onClose()} label={adding ? 'Add column' : 'Rename column'} busyLabel="Saving…" />}
    >
      <form id="column-form" ref={form} onSubmit={(event) => void submit(event)} noValidate>
        <ErrorNotice error={error ?? (errors.general ? new Error(errors.general) : undefined)} />
        <TextField
          label="Label"
          value={label}
          onChange={(value) => {
            setLabel(value);
            if (adding && !idTouched) setId(columnIdFromLabel(value));
          }}
          error={errors.label}
          maxLength={200}
          required
          data-autofocus
        />
        {adding ? (
          <TextField
            label="Value"
            hint="What the records store in the field for this column; it never changes."
            value={id}
            onChange={(value) => {
              setId(value);
              setIdTouched(true);
            }}
            error={errors.id}
            maxLength={100}
            required
            spellCheck={false}
            autoCapitalize="off"
          />
        ) : null}
      </form>
    </Dialog>
  );
}
