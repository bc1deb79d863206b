import { useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../forms/fields';
import { checkText, collectErrors } from '../forms/text-rules';
import { useSignedIn } from '../session/session-context';

/** A person who belongs to no organization yet creates one (and becomes its owner). */
export default function CreateOrganizationPage() {
  const { me, rpc, switchOrganization, signOut } = useSignedIn();
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = collectErrors({ name: checkText(name, { required: true, maxLength: 100 }) });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(undefined);
    try {
      const organization = await rpc.call('organizations.create', { name: name.trim() });
      await switchOrganization(organization.id);
    } catch (failure) {
      setError(failure);
      setErrors(fieldErrorsOf(failure));
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <h1>Create your organization</h1>
      <p>
        You are signed in as {me.user.email} and belong to no organization yet. Create one, or ask an administrator to invite
        you and open the link they send you.
      </p>
      <ErrorNotice error={error} />
      <form onSubmit={(event) => void submit(event)} className="card">
        <TextField label="Organization name" value={name} onChange={setName} error={errors.name} required autoFocus />
        <button type="submit" className="button button-primary" disabled={busy}>
          Create organization
        </button>
      </form>
      <button type="button" className="button button-quiet" onClick={() => signOut()}>
        Sign out
      </button>
    </main>
  );
}
