import { useEffect, useState, type FormEvent } from 'react';
import { devSignInAvailable, mintDevSession, type DevSignIn } from '../api/dev-session';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextAreaField, TextField } from '../forms/fields';
import { useSession } from '../session/session-context';

/**
 * Signing in: a session token of the identity provider, pasted here; in development also
 * "continue as" the demo user or any email, through the api's development sign-in.
 */
export default function SignInPage({ notice }: { notice?: string }) {
  const { signIn } = useSession();
  const [dev, setDev] = useState<DevSignIn | null>();
  const [email, setEmail] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Sign in · Console';
    void devSignInAvailable().then(setDev);
  }, []);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  const continueAs = (address: string) => run(async () => signIn(await mintDevSession(address)));
  const submitEmail = (event: FormEvent) => {
    event.preventDefault();
    if (email.trim()) void continueAs(email.trim());
  };
  const submitToken = (event: FormEvent) => {
    event.preventDefault();
    if (token.trim()) void run(() => signIn(token));
  };

  return (
    <main className="sign-in" id="main">
      <h1>Sign in to the console</h1>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorNotice error={error} />
      {dev ? (
        <section className="card" aria-labelledby="dev-sign-in">
          <h2 id="dev-sign-in">Development sign-in</h2>
          <p className="field-hint">This server runs outside production, so it signs anyone in without a password.</p>
          <button type="button" className="button button-primary" disabled={busy} onClick={() => void continueAs(dev.demoEmail)}>
            Continue as {dev.demoEmail}
          </button>
          <form onSubmit={submitEmail} className="inline-form">
            <TextField label="Or continue as any email" type="email" autoComplete="email" value={email} onChange={setEmail} required />
            <button type="submit" className="button" disabled={busy}>
              Continue
            </button>
          </form>
        </section>
      ) : null}
      <section className="card" aria-labelledby="token-sign-in">
        <h2 id="token-sign-in">Session token</h2>
        <form onSubmit={submitToken}>
          <TextAreaField
            label="Session token from your identity provider"
            hint="The JWT your identity provider issued for this platform. It is kept by the open tabs of this console only and forgotten when the last one closes."
            value={token}
            onChange={setToken}
            rows={3}
            spellCheck={false}
            autoComplete="off"
            required
          />
          <button type="submit" className="button" disabled={busy}>
            Sign in
          </button>
        </form>
      </section>
    </main>
  );
}
