import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createRpcClient, type RpcClient } from '../api/rpc-client';
import { isRpcError } from '../api/rpc-error';
import type { Me } from '../api/types';
import { openSessionChannel, type SessionChannel } from './session-channel';
import { chooseOrganization, loadStoredSession, storeOrganization, storeToken } from './session-storage';

/** How long a new tab waits for an open tab to share its session before showing the sign-in. */
const ASK_OTHER_TABS_MS = 300;
const canAskOtherTabs = () => typeof BroadcastChannel !== 'undefined';

export type SessionState =
  | { status: 'signed-out'; notice?: string }
  | { status: 'loading' }
  | { status: 'signed-in'; me: Me; organizationId: string | null; permissions: ReadonlySet<string> };

export interface Session {
  state: SessionState;
  rpc: RpcClient;
  /** Verifies the token with `me.get`; throws the call's error when the server refuses it. */
  signIn(token: string): Promise<void>;
  signOut(notice?: string): void;
  switchOrganization(organizationId: string): Promise<void>;
  /** Reads `me.get` again (after creating an organization, or a role change). */
  refresh(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The signed-in state, for pages that only render behind sign-in. */
export function useSignedIn(): Extract<SessionState, { status: 'signed-in' }> & Omit<Session, 'state'> {
  const { state, ...rest } = useSession();
  if (state.status !== 'signed-in') throw new Error('useSignedIn before sign-in');
  return { ...state, ...rest };
}

export function SessionProvider({ children, fetch }: { children: ReactNode; fetch?: typeof globalThis.fetch }) {
  const stored = useRef(loadStoredSession());
  const credentials = useRef({ token: stored.current.token, organizationId: stored.current.organizationId });
  const [state, setState] = useState<SessionState>(() =>
    stored.current.token || canAskOtherTabs() ? { status: 'loading' } : { status: 'signed-out' },
  );
  const channel = useRef<SessionChannel | null>(null);

  const endSession = useCallback((notice?: string) => {
    credentials.current = { token: null, organizationId: credentials.current.organizationId };
    storeToken(null);
    setState({ status: 'signed-out', notice });
  }, []);

  const signOut = useCallback(
    (notice?: string) => {
      endSession(notice);
      channel.current?.announceSignOut();
    },
    [endSession],
  );

  const rpc = useMemo(
    () =>
      createRpcClient({
        fetch,
        credentials: () => (credentials.current.token ? { token: credentials.current.token, organizationId: credentials.current.organizationId } : null),
        onUnauthorized: (error) => signOut(`You were signed out: ${error.message}`),
      }),
    [fetch, signOut],
  );

  /** me.get as the token, in `preferred` when still a member there. */
  const load = useCallback(
    async (token: string, preferred: string | null) => {
      credentials.current = { token, organizationId: null };
      const first = await rpc.call('me.get');
      const organizationId = chooseOrganization(
        first.organizations.map((organization) => organization.id),
        preferred,
      );
      credentials.current = { token, organizationId };
      const me = organizationId ? await rpc.call('me.get') : first;
      storeToken(token);
      storeOrganization(organizationId);
      setState({ status: 'signed-in', me, organizationId, permissions: new Set(me.activeOrganization?.permissions ?? []) });
    },
    [rpc],
  );

  useEffect(() => {
    let active = true;
    const resume = (token: string, organizationId: string | null) =>
      load(token, organizationId).catch((error: unknown) => {
        if (active) endSession(isRpcError(error) ? `Sign in again: ${error.message}` : undefined);
      });
    const opened = openSessionChannel({
      current: () => (credentials.current.token ? { ...credentials.current } : null),
      onSignedOut: () => {
        if (credentials.current.token) endSession('You signed out in another tab.');
      },
      // A tab still on the sign-in page follows another tab's sign-in; a signed-in tab keeps its own session.
      onSignedIn: (shared) => {
        if (!credentials.current.token && shared.token) void resume(shared.token, stored.current.organizationId ?? shared.organizationId);
      },
    });
    channel.current = opened;
    const { token, organizationId } = stored.current;
    if (token) void resume(token, organizationId);
    else if (opened) {
      void opened.ask(ASK_OTHER_TABS_MS).then((shared) => {
        if (!active || credentials.current.token) return;
        if (shared?.token) void resume(shared.token, stored.current.organizationId ?? shared.organizationId);
        else setState((current) => (current.status === 'loading' ? { status: 'signed-out' } : current));
      });
    }
    return () => {
      active = false;
      opened?.close();
      channel.current = null;
    };
  }, [load, endSession]);

  const session = useMemo<Session>(
    () => ({
      state,
      rpc,
      signIn: async (token) => {
        await load(token.trim(), credentials.current.organizationId);
        if (credentials.current.token) channel.current?.announceSignIn({ token: credentials.current.token, organizationId: credentials.current.organizationId });
      },
      signOut,
      switchOrganization: async (organizationId) => {
        if (!credentials.current.token) return;
        await load(credentials.current.token, organizationId);
      },
      refresh: async () => {
        if (!credentials.current.token) return;
        await load(credentials.current.token, credentials.current.organizationId);
      },
    }),
    [state, rpc, load, signOut],
  );

  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
