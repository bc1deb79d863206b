import { useEffect, useState } from 'react';
import { navigate } from '../app/router';
import { ErrorNotice } from '../components/ErrorNotice';
import { tokenFromFragment } from '../organization/invite-link';
import { useSignedIn } from '../session/session-context';
import { HOME_PATH } from '../app/pages';

/** Opened from an invitation link: joins its organization as the signed-in person, then goes to its data. */
export default function JoinPage() {
  const { me, rpc, switchOrganization, signOut } = useSignedIn();
  const [token] = useState(() => tokenFromFragment(location.hash));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Join an organization · Console';
  }, []);

  const join = async () => {
    if (!token) return;
    setBusy(true);
    setError(undefined);
    try {
      const joined = await rpc.call('organizations.acceptInvite', { token });
      await switchOrganization(joined.organization.id);
      navigate(HOME_PATH, { replace: true });
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <h1>Join an organization</h1>
      {token ? (
        <>
          <p>
            You were invited to an organization. You join it as <strong>{me.user.email}</strong>: the invitation works only for the address
            it was sent to.
          </p>
          <ErrorNotice error={error} />
          <div className="button-row">
            <button type="button" className="button button-primary" disabled={busy} onClick={() => void join()}>
              {busy ? 'Joining…' : 'Join'}
            </button>
            <button type="button" className="button" disabled={busy} onClick={() => navigate(HOME_PATH, { replace: true })}>
              Not now
            </button>
            <button type="button" className="button button-quiet" disabled={busy} onClick={() => signOut()}>
              Sign in as someone else
            </button>
          </div>
        </>
      ) : (
        <>
          <p>This link holds no invitation. Open the whole link you were sent, or ask for a new one.</p>
          <button type="button" className="button" onClick={() => navigate(HOME_PATH, { replace: true })}>
            Go to the console
          </button>
        </>
      )}
    </main>
  );
}
