import { lazy, Suspense } from 'react';
import { SessionProvider, useSession } from '../session/session-context';
import { Shell } from './Shell';

const SignInPage = lazy(() => import('../pages/SignInPage'));
const CreateOrganizationPage = lazy(() => import('../pages/CreateOrganizationPage'));

function Gate() {
  const { state } = useSession();
  if (state.status === 'loading') return <p className="loading" role="status">Signing in…</p>;
  if (state.status === 'signed-out') {
    return (
      <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
        <SignInPage notice={state.notice} />
      </Suspense>
    );
  }
  if (!state.organizationId) {
    return (
      <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
        <CreateOrganizationPage />
      </Suspense>
    );
  }
  return <Shell />;
}

export function App({ fetch }: { fetch?: typeof globalThis.fetch }) {
  return (
    <SessionProvider fetch={fetch}>
      <Gate />
    </SessionProvider>
  );
}
