import type { StoredSession } from './session-storage';

/**
 * The tabs of one browser share the session over a BroadcastChannel (same origin only): a tab
 * opened without a session asks, a tab holding one answers, and signing out in one tab signs out
 * the others; signing in offers the session to the tabs still on the sign-in page. The token still lives in each tab's sessionStorage only, never in localStorage, so it
 * ends with the last tab of the browser.
 */
export const SESSION_CHANNEL = 'console.session';

type SessionMessage =
  | { type: 'ask' }
  | { type: 'share'; token: string; organizationId: string | null }
  | { type: 'signed-out' };

function isSessionMessage(data: unknown): data is SessionMessage {
  if (typeof data !== 'object' || data === null) return false;
  const message = data as { type?: unknown; token?: unknown };
  if (message.type === 'ask' || message.type === 'signed-out') return true;
  return message.type === 'share' && typeof message.token === 'string' && message.token.length > 0;
}

export interface SessionChannel {
  /** The session of another open tab, or null when none answers within `waitMs`. */
  ask(waitMs: number): Promise<StoredSession | null>;
  /** Tells the other tabs that this session ended. */
  announceSignOut(): void;
  /** Offers this tab's new session to the tabs that have none. */
  announceSignIn(session: { token: string; organizationId: string | null }): void;
  close(): void;
}

export interface SessionChannelHandlers {
  /** This tab's session, given to a tab that asks; null when signed out. */
  current(): StoredSession | null;
  /** Another tab signed out. */
  onSignedOut(): void;
  /** Another tab signed in (or answered another tab's question) with this session. */
  onSignedIn?(session: StoredSession): void;
}

/** null where the browser has no BroadcastChannel: each tab then signs in on its own. */
export function openSessionChannel(handlers: SessionChannelHandlers): SessionChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null;
  const channel = new BroadcastChannel(SESSION_CHANNEL);
  const waiting = new Set<(session: StoredSession | null) => void>();

  channel.onmessage = (event: MessageEvent<unknown>) => {
    const message = event.data;
    if (!isSessionMessage(message)) return;
    if (message.type === 'ask') {
      const session = handlers.current();
      if (session?.token) channel.postMessage({ type: 'share', token: session.token, organizationId: session.organizationId });
    } else if (message.type === 'share') {
      const session = { token: message.token, organizationId: message.organizationId };
      if (waiting.size > 0) waiting.forEach((resolve) => resolve(session));
      else handlers.onSignedIn?.(session);
    } else {
      handlers.onSignedOut();
    }
  };

  return {
    ask(waitMs) {
      return new Promise((resolve) => {
        const done = (session: StoredSession | null) => {
          clearTimeout(timer);
          waiting.delete(done);
          resolve(session);
        };
        const timer = setTimeout(() => done(null), waitMs);
        waiting.add(done);
        channel.postMessage({ type: 'ask' });
      });
    },
    announceSignOut() {
      channel.postMessage({ type: 'signed-out' });
    },
    announceSignIn(session) {
      channel.postMessage({ type: 'share', token: session.token, organizationId: session.organizationId });
    },
    close() {
      waiting.forEach((resolve) => resolve(null));
      waiting.clear();
      channel.close();
    },
  };
}
