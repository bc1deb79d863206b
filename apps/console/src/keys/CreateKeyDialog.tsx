import { useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import type { CreatedApiKey } from '../api/types';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { CheckboxGroup, RadioGroup, SelectField, TextField, type Option } from '../forms/fields';
import { EMPTY_KEY_FORM, EXPIRY_OPTIONS, checkKeyForm, type Access, type KeyCreateInput, type KeyFormValues } from './key-form';
import { FormFooter } from '../components/FormFooter';

export interface CreateKeyDialogProps {
  open: boolean;
  title: string;
  /** The permissions a limited key may carry: the creator's own (the server refuses any other). */
  grantable: Option[];
  /** Who the key acts as, said above the form. */
  actsAs: string;
  create: (input: KeyCreateInput) => Promise<CreatedApiKey>;
  /** Called when the dialog closes; `created` when a key was made. */
  onClose: (created: boolean) => void;
}

/** Create a key, then show its token once with a copy button. */
export function CreateKeyDialog({ open, title, grantable, actsAs, create, onClose }: CreateKeyDialogProps) {
  const [values, setValues] = useState<KeyFormValues>(EMPTY_KEY_FORM);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey>();

  const set = <K extends keyof KeyFormValues>(key: K, value: KeyFormValues[K]) => setValues((current) => ({ ...current, [key]: value }));
  const close = () => {
    const made = created !== undefined;
    setValues(EMPTY_KEY_FORM);
    setErrors({});
    setError(undefined);
    setCreated(undefined);
    onClose(made);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkKeyForm(values, new Set(grantable.map((option) => option.value)));
    setErrors(checked.errors);
    if (!checked.input) return;
    setBusy(true);
    setError(undefined);
    try {
      setCreated(await create(checked.input));
    } catch (failure) {
      setError(failure);
      setErrors(fieldErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <Dialog open={open} title="Your new API key" onClose={close} footer={<button type="button" className="button button-primary" onClick={close}>Done</button>}>
        <p className="notice notice-warning" role="status">
          Copy this key now: <strong>you will not see it again.</strong> If you lose it, revoke it and create a new one.
        </p>
        <div className="field">
          <label htmlFor="created-token">API key “{created.name}”</label>
          <input id="created-token" className="token" readOnly value={created.token} data-autofocus onFocus={(event) => event.target.select()} />
        </div>
        <CopyButton text={created.token} label="Copy key" />
      </Dialog>
    );
  }

  const accessOptions: Option<Access>[] = [
    { value: 'limited', label: 'Limited', description: 'Only the permissions you choose below' },
    { value: 'full', label: 'Full access', description: `Everything ${actsAs} may do, now and later` },
  ];
  return (
    <Dialog
      open={open}
      title={title}
      onClose={close}
      busy={busy}
      footer={<FormFooter formId="create-key-form" busy={busy} onCancel={close} label="Create key" busyLabel="Creating…" />}
    >
      <form id="create-key-form" onSubmit={(event) => void submit(event)} noValidate>
        <p className="field-hint">The key acts as {actsAs} in this organization.</p>
        <ErrorNotice error={error} />
        <TextField label="Name" hint="To tell your keys apart, e.g. “CRM sync”" value={values.name} onChange={(name) => set('name', name)} error={errors.name} maxLength={100} required data-autofocus />
        <RadioGroup label="Access" name="access" value={values.access} options={accessOptions} onChange={(access) => set('access', access)} error={errors.fullAccess} />
        {values.access === 'limited' ? (
          <CheckboxGroup
            label="Permissions"
            hint="Only permissions you hold yourself can be given to a key."
            values={values.permissions}
            options={grantable}
            onChange={(permissions) => set('permissions', permissions)}
            error={errors.permissions}
            empty="You hold no permissions that a key could carry."
          />
        ) : null}
        <SelectField label="Expires" value={values.expiry} options={EXPIRY_OPTIONS} onChange={(expiry) => set('expiry', expiry)} error={values.expiry === 'custom' ? undefined : errors.expiresAt} />
        {values.expiry === 'custom' ? (
          <TextField label="Expiry date" hint="The key works until the end of this day." type="date" value={values.expiryDate} onChange={(date) => set('expiryDate', date)} error={errors.expiresAt} required />
        ) : null}
      </form>
    </Dialog>
  );
}
