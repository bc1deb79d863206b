import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import { useRpcQuery } from '../api/use-rpc-query';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField, TextField } from '../forms/fields';
import { checkText, collectErrors } from '../forms/text-rules';
import { useSignedIn } from '../session/session-context';
import { fieldChoices } from './model-choices';
import type { Calendar } from './types';
import { FormFooter } from '../components/FormFooter';

export interface CalendarDialogProps {
  open: boolean;
  onClose: (created?: Calendar) => void;
}

/** A new calendar: a name, a model, its date field where events start and, optionally, one where they end. */
export function CalendarDialog({ open, onClose }: CalendarDialogProps) {
  const { rpc } = useSignedIn();
  const [name, setName] = useState('');
  const [modelKey, setModelKey] = useState('');
  const [startFieldKey, setStartFieldKey] = useState('');
  const [endFieldKey, setEndFieldKey] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const models = useRpcQuery('dataModels.list', {}, { enabled: open });
  const fields = useRpcQuery('dataModels.fields.list', { model: modelKey }, { enabled: open && modelKey !== '' });
  const fieldItems = useMemo(() => (modelKey && fields.data ? fields.data.items : []), [modelKey, fields.data]);
  const startChoices = useMemo(() => fieldChoices(fieldItems, ['DATETIME', 'DATE']), [fieldItems]);
  const startType = fieldItems.find((field) => field.key === startFieldKey)?.type;
  const endChoices = useMemo(
    () => (startType ? fieldChoices(fieldItems, [startType]).filter((choice) => choice.value !== startFieldKey) : []),
    [fieldItems, startType, startFieldKey],
  );

  useEffect(() => {
    if (!open) return;
    setName('');
    setModelKey('');
    setStartFieldKey('');
    setEndFieldKey('');
    setErrors({});
    setError(undefined);
  }, [open]);

  useEffect(() => {
    if (!startChoices.some((choice) => choice.value === startFieldKey)) setStartFieldKey(startChoices[0]?.value ?? '');
  }, [startChoices, startFieldKey]);
  useEffect(() => {
    if (endFieldKey && !endChoices.some((choice) => choice.value === endFieldKey)) setEndFieldKey('');
  }, [endChoices, endFieldKey]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = collectErrors({
      name: checkText(name, { required: true, maxLength: 200 }),
      modelKey: modelKey ? undefined : 'Choose the model whose records are the events',
      startFieldKey: !modelKey || startFieldKey ? undefined : 'The model has no date or date-and-time field: add one to the model first',
    });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(undefined);
    try {
      onClose(await rpc.call('calendars.create', { name: name.trim(), modelKey, startFieldKey, ...(endFieldKey ? { endFieldKey } : {}) }));
    } catch (failure) {
      setError(failure);
      setErrors(fieldErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  const placeholder = (label: string) => [{ value: '', label: modelKey ? (fields.loading ? 'Loading fields…' : label) : 'Choose a model first' }];
  return (
    <Dialog
      open={open}
      title="Create calendar"
      onClose={() => onClose()}
      busy={busy}
      footer={<FormFooter formId="calendar-form" busy={busy} onCancel={() => onClose()} label="Create calendar" busyLabel="Creating…" />}
    >
      <form id="calendar-form" onSubmit={(event) => void submit(event)} noValidate>
        <ErrorNotice error={error ?? models.error ?? fields.error} />
        <TextField label="Name" value={name} onChange={setName} error={errors.name} maxLength={200} required data-autofocus />
        <SelectField
          label="Model"
          hint="Its records are the events."
          value={modelKey}
          options={[{ value: '', label: models.data ? 'Choose a model' : 'Loading models…' }, ...(models.data?.items ?? []).map((model) => ({ value: model.key, label: model.name }))]}
          onChange={setModelKey}
          error={errors.modelKey}
          aria-required
        />
        <SelectField
          label="Starts at"
          hint="A date or date-and-time field."
          value={startFieldKey}
          options={startChoices.length > 0 ? startChoices : placeholder('No date field')}
          onChange={setStartFieldKey}
          error={errors.startFieldKey}
          disabled={startChoices.length === 0}
          aria-required
        />
        <SelectField
          label="Ends at (optional)"
          hint="A field of the same type; events then span from start to end."
          value={endFieldKey}
          options={[{ value: '', label: 'No end field' }, ...endChoices]}
          onChange={setEndFieldKey}
          error={errors.endFieldKey}
          disabled={endChoices.length === 0}
        />
      </form>
    </Dialog>
  );
}
