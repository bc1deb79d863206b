import { useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import { formatDateTime } from '../app/format';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../forms/fields';
import { checkText, collectErrors } from '../forms/text-rules';
import { useSignedIn } from '../session/session-context';

/** Your own account: your display name, and deleting the account (after a grace period you can cancel). */
export default function AccountPage() {
  const { me, rpc, refresh } = useSignedIn();
  const [displayName, setDisplayName] = useState(me.user.displayName);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const scheduled = me.user.deletionScheduledFor;

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      await refresh();
    } catch (failure) {
      setError(failure);
      setErrors(fieldErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  const saveName = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const found = collectErrors({ displayName: checkText(displayName, { required: true, maxLength: 200 }) });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    void run(async () => {
      await rpc.call('users.updateProfile', { displayName: displayName.trim() });
      setSaved(true);
    });
  };

  return (
    <section aria-labelledby="page-title" className="editor">
      <div className="page-header">
        <h1 id="page-title">Your account</h1>
      </div>
      <ErrorNotice error={error} />
      <form className="card" onSubmit={saveName} aria-labelledby="profile-title">
        <h2 id="profile-title">Profile</h2>
        <TextField
          label="Display name"
          hint="How other members see you, in member lists and on cards."
          value={displayName}
          onChange={(value) => {
            setDisplayName(value);
            setSaved(false);
          }}
          error={errors.displayName}
          required
          maxLength={200}
        />
        <dl className="facts">
          <dt>Email</dt>
          <dd>
            {me.user.email} <span className="choice-description-inline">(set by your identity provider)</span>
          </dd>
        </dl>
        <div className="button-row form-footer">
          <button type="submit" className="button button-primary" disabled={busy}>
            Save
          </button>
          {saved ? (
            <span role="status" className="copy-status">
              Saved.
            </span>
          ) : null}
        </div>
      </form>

      <section className="card" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete your account</h2>
        {scheduled ? (
          <>
            <p className="notice notice-warning" role="status">
              Your account will be deleted on <strong>{formatDateTime(scheduled)}</strong>. Until then everything keeps working, and you can
              change your mind.
            </p>
            <button type="button" className="button" disabled={busy} onClick={() => void run(() => rpc.call('users.cancelDeletion', {}))}>
              Keep my account
            </button>
          </>
        ) : (
          <>
            <p>
              After a grace period your sessions and API keys stop working, your memberships end and your profile is anonymised.
              You can cancel until then.
            </p>
            <button type="button" className="button button-danger" disabled={busy} onClick={() => setDeleting(true)}>
              Delete my account
            </button>
          </>
        )}
      </section>

      <ConfirmDialog
        open={deleting}
        title="Delete your account?"
        confirmLabel="Delete my account"
        danger
        onConfirm={async () => {
          await rpc.call('users.requestDeletion', {});
          await refresh();
        }}
        onClose={() => setDeleting(false)}
      >
        <p>Your account is scheduled for deletion. You can cancel on this page until the date shown.</p>
      </ConfirmDialog>
    </section>
  );
}
