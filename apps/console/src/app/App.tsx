import { lazy, Suspense } from 'react';
import { SessionProvider, useSession } from '../session/session-context';
import { JOIN_PATH } from '../organization/invite-link';
import { useCurrentPath } from './router';
import { Shell } from './Shell';

const SignInPage = lazy(() => import('../pages/SignInPage'));
const CreateOrganizationPage = lazy(() => import('../pages/CreateOrganizationPage'));
const JoinPage = lazy(() => import('../pages/JoinPage'));

function Gate() {
  const { state } = useSession();
  const path = useCurrentPath();
  if (state.status === 'loading') return <p className="loading" role="status">Signing in…</p>;
  if (state.status === 'signed-out') {
    return (
      <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
        <SignInPage notice={state.notice} />
      </Suspense>
    );
  }
  // An invitation is accepted before anything else, also by someone who belongs to no organization yet.
  if (path === JOIN_PATH) {
    return (
      <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
        <JoinPage />
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
