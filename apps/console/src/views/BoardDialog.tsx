import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import { useRpcQuery } from '../api/use-rpc-query';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField, TextField } from '../forms/fields';
import { checkText, collectErrors } from '../forms/text-rules';
import { useSignedIn } from '../session/session-context';
import { fieldChoices } from './model-choices';
import type { Board } from './types';
import { FormFooter } from '../components/FormFooter';

export interface BoardDialogProps {
  open: boolean;
  onClose: (created?: Board) => void;
}

/** A new board: a name, a model, and the model's SELECT field whose options are the columns. */
export function BoardDialog({ open, onClose }: BoardDialogProps) {
  const { rpc } = useSignedIn();
  const [name, setName] = useState('');
  const [modelKey, setModelKey] = useState('');
  const [fieldKey, setFieldKey] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const models = useRpcQuery('dataModels.list', {}, { enabled: open });
  const fields = useRpcQuery('dataModels.fields.list', { model: modelKey }, { enabled: open && modelKey !== '' });
  const selectFields = useMemo(() => (modelKey && fields.data ? fieldChoices(fields.data.items, ['SELECT']) : []), [modelKey, fields.data]);

  useEffect(() => {
    if (!open) return;
    setName('');
    setModelKey('');
    setFieldKey('');
    setErrors({});
    setError(undefined);
  }, [open]);

  useEffect(() => {
    // The first SELECT field of the chosen model, when the current choice is not one of it.
    if (!selectFields.some((choice) => choice.value === fieldKey)) setFieldKey(selectFields[0]?.value ?? '');
  }, [selectFields, fieldKey]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = collectErrors({
      name: checkText(name, { required: true, maxLength: 200 }),
      modelKey: modelKey ? undefined : 'Choose the model whose records are the cards',
      fieldKey: !modelKey ? undefined : fieldKey ? undefined : 'The model has no single-select field: add one to the model first',
    });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(undefined);
    try {
      onClose(await rpc.call('kanban.boards.create', { name: name.trim(), modelKey, fieldKey }));
    } catch (failure) {
      setError(failure);
      setErrors(fieldErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title="Create board"
      onClose={() => onClose()}
      busy={busy}
      footer={<FormFooter formId="board-form" busy={busy} onCancel={() => onClose()} label="Create board" busyLabel="Creating…" />}
    >
      <form id="board-form" onSubmit={(event) => void submit(event)} noValidate>
        <ErrorNotice error={error ?? models.error ?? fields.error} />
        <TextField label="Name" value={name} onChange={setName} error={errors.name} maxLength={200} required data-autofocus />
        <SelectField
          label="Model"
          hint="Its records are the cards."
          value={modelKey}
          options={[{ value: '', label: models.data ? 'Choose a model' : 'Loading models…' }, ...(models.data?.items ?? []).map((model) => ({ value: model.key, label: model.name }))]}
          onChange={setModelKey}
          error={errors.modelKey}
          aria-required
        />
        <SelectField
          label="Column field"
          hint="A single-select field: its options are the columns, in order."
          value={fieldKey}
          options={selectFields.length > 0 ? selectFields : [{ value: '', label: modelKey ? (fields.loading ? 'Loading fields…' : 'No single-select field') : 'Choose a model first' }]}
          onChange={setFieldKey}
          error={errors.fieldKey}
          disabled={selectFields.length === 0}
          aria-required
        />
      </form>
    </Dialog>
  );
}
