import { useEffect, useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { FormFooter } from '../components/FormFooter';
import { TextField } from '../forms/fields';
import { checkText, collectErrors } from '../forms/text-rules';
import type { GridViewState } from '../records/view-state';
import { useSignedIn } from '../session/session-context';
import { SHARING_PERMISSION, asGridView, type GridView } from './saved-views';

export interface SaveViewDialogProps {
  open: boolean;
  modelKey: string;
  state: GridViewState;
  onClose(saved?: GridView): void;
}

/** Saves the grid as it is as a new view: a name, and whether the organization sees it too. */
export function SaveViewDialog({ open, modelKey, state, onClose }: SaveViewDialogProps) {
  const { rpc, permissions } = useSignedIn();
  const mayShare = permissions.has(SHARING_PERMISSION);
  const [name, setName] = useState('');
  const [shared, setShared] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!open) return;
    setName('');
    setShared(false);
    setErrors({});
    setError(undefined);
  }, [open]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = collectErrors({ name: checkText(name, { required: true, maxLength: 200 }) });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(undefined);
    try {
      onClose(asGridView(await rpc.call('views.grids.create', { modelKey, name: name.trim(), state, shared })));
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
      title="Save view"
      onClose={() => onClose()}
      busy={busy}
      footer={<FormFooter formId="save-view-form" busy={busy} onCancel={() => onClose()} label="Save view" busyLabel="Saving…" />}
    >
      <form id="save-view-form" onSubmit={(event) => void submit(event)} noValidate>
        <p className="field-hint">The search, filter, sort, page size and columns as they are now.</p>
        <ErrorNotice error={error} />
        <TextField label="Name" value={name} onChange={setName} error={errors.name} maxLength={200} required data-autofocus />
        <div className="choice">
          <input id="save-view-shared" type="checkbox" checked={shared} disabled={!mayShare} onChange={(event) => setShared(event.target.checked)} />
          <label htmlFor="save-view-shared">
            Share with the organization
            <span className="choice-description">
              {mayShare ? 'Every member sees it in their views; only people who manage data models can change it.' : 'Sharing needs the permission to manage data models.'}
            </span>
          </label>
        </div>
      </form>
    </Dialog>
  );
}
