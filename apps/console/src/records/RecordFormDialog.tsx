import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { RpcError } from '../api/rpc-error';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { useFocusFirstInvalid } from '../forms/focus-invalid';
import { liveFields } from '../data-models/field-types';
import type { DataField, DataRecord } from '../data-models/types';
import { useSignedIn } from '../session/session-context';
import { formatValue } from './format-value';
import { checkRecordData, dataFromForm, editableFields, formValuesOf, serverFieldErrors, type FormErrors, type FormValue, type RecordFormValues } from './record-form';
import { RecordValueInput } from './RecordValueInput';
import { FormFooter } from '../components/FormFooter';

export interface RecordFormDialogProps {
  open: boolean;
  modelKey: string;
  modelName: string;
  fields: readonly DataField[];
  /** The record to edit; a new record without. */
  record?: DataRecord;
  /** A new record's starting values by field key (a calendar's day in its start field). */
  prefill?: Record<string, unknown>;
  onClose: (saved?: DataRecord) => void;
}

const NO_ERRORS: FormErrors = { byKey: {}, unplaced: [] };

/**
 * A record's values, checked in the browser by field-validation's rules before anything is
 * sent; what the server still refuses (a linked record deleted meanwhile) is shown under the
 * same fields. Either way the focus moves to the first field in error.
 */
export function RecordFormDialog({ open, modelKey, modelName, fields, record, prefill, onClose }: RecordFormDialogProps) {
  const { rpc } = useSignedIn();
  const creating = record === undefined;
  const initial = useMemo(() => formValuesOf(fields, record ?? (prefill ? { data: prefill } : undefined)), [fields, record, prefill]);
  const [values, setValues] = useState<RecordFormValues>(initial);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const focusInvalid = useFocusFirstInvalid(form);

  useEffect(() => {
    if (!open) return;
    setValues(initial);
    setErrors(NO_ERRORS);
    setError(undefined);
  }, [open, initial]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const mode = creating ? 'create' : 'update';
    const data = dataFromForm(fields, values, mode, initial);
    const checked = checkRecordData(fields, data, mode);
    setError(undefined);
    setErrors(checked.placed);
    if (checked.errors.length > 0) {
      focusInvalid();
      return;
    }
    if (!creating && Object.keys(data).length === 0) {
      onClose();
      return;
    }
    setBusy(true);
    try {
      const saved = creating
        ? await rpc.call('records.create', { model: modelKey, data })
        : await rpc.call('records.update', { id: record.id, data });
      onClose(saved);
    } catch (failure) {
      const placed = serverFieldErrors(fields, failure);
      setErrors(placed);
      // Refusals placed on fields are said there; the notice keeps the rest and the request id.
      setError(
        failure instanceof RpcError && placed.first
          ? new RpcError({ code: failure.code, message: failure.message, status: failure.status, requestId: failure.requestId, details: placed.unplaced })
          : failure,
      );
      focusInvalid();
    } finally {
      setBusy(false);
    }
  };

  const computed = liveFields(fields).filter((field) => field.type === 'FORMULA');
  return (
    <Dialog
      open={open}
      title={creating ? `New ${modelName} record` : `Edit ${record.title || 'record'}`}
      onClose={() => onClose()}
      busy={busy}
      footer={<FormFooter formId="record-form" busy={busy} onCancel={() => onClose()} label={creating ? 'Create record' : 'Save record'} busyLabel="Saving…" />}
    >
      <form id="record-form" ref={form} onSubmit={(event) => void submit(event)} noValidate>
        <ErrorNotice error={error} />
        {editableFields(fields).map((field) => (
          <div key={field.key} data-field-key={field.key}>
            <RecordValueInput
              field={field}
              value={values[field.key] as FormValue}
              onChange={(value) => setValues((current) => ({ ...current, [field.key]: value }))}
              error={errors.byKey[field.key]}
            />
          </div>
        ))}
        {computed.length > 0 ? (
          <dl className="computed">
            {computed.map((field) => (
              <div key={field.key}>
                <dt>{field.name}</dt>
                <dd>{record ? formatValue(field, record.data[field.key]) || '—' : 'Computed when saved'}</dd>
              </div>
            ))}
          </dl>
        ) : null}
      </form>
    </Dialog>
  );
}
