import { useEffect, useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextAreaField, TextField } from '../forms/fields';
import { checkText, collectErrors } from '../forms/text-rules';
import { useSignedIn } from '../session/session-context';
import { checkKey, keyFromName, KEY_RULE_MESSAGE } from './field-config-form';
import type { DataModel } from './types';
import { FormFooter } from '../components/FormFooter';

export interface ModelDialogProps {
  open: boolean;
  /** The model to edit; creating a new one without. */
  model?: DataModel;
  onClose: (saved?: DataModel) => void;
}

/** Create a model (key, name, description), or rename one and change its description. */
export function ModelDialog({ open, model, onClose }: ModelDialogProps) {
  const { rpc } = useSignedIn();
  const creating = model === undefined;
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [keyTouched, setKeyTouched] = useState(false);
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!open) return;
    setName(model?.name ?? '');
    setKey(model?.key ?? '');
    setKeyTouched(false);
    setDescription(model?.description ?? '');
    setErrors({});
    setError(undefined);
  }, [open, model]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = collectErrors({
      name: checkText(name, { required: true, maxLength: 200 }),
      key: creating ? checkKey(key) : undefined,
      description: checkText(description, { maxLength: 2000 }),
    });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(undefined);
    try {
      const saved = creating
        ? await rpc.call('dataModels.create', { key, name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) })
        : await rpc.call('dataModels.update', { key: model.key, name: name.trim(), description: description.trim() || null });
      onClose(saved);
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
      title={creating ? 'Create data model' : `Edit ${model.name}`}
      onClose={() => onClose()}
      busy={busy}
      footer={<FormFooter formId="model-form" busy={busy} onCancel={() => onClose()} label={creating ? 'Create model' : 'Save'} busyLabel="Saving…" />}
    >
      <form id="model-form" onSubmit={(event) => void submit(event)} noValidate>
        <ErrorNotice error={error} />
        <TextField
          label="Name"
          hint="What its records are, e.g. “Contacts”"
          value={name}
          onChange={(value) => {
            setName(value);
            if (creating && !keyTouched) setKey(keyFromName(value));
          }}
          error={errors.name}
          maxLength={200}
          required
          data-autofocus
        />
        {creating ? (
          <TextField
            label="Key"
            hint={`Names the model in the API (/models/{key}/records) and never changes. ${KEY_RULE_MESSAGE}.`}
            value={key}
            onChange={(value) => {
              setKey(value);
              setKeyTouched(true);
            }}
            error={errors.key}
            maxLength={63}
            required
            spellCheck={false}
            autoCapitalize="off"
          />
        ) : null}
        <TextAreaField label="Description" value={description} onChange={setDescription} error={errors.description} rows={2} maxLength={2000} />
      </form>
    </Dialog>
  );
}
