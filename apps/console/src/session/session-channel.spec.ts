import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSessionChannel, type SessionChannel } from './session-channel';

describe('the session shared between tabs', () => {
  const opened: SessionChannel[] = [];
  const tab = (
    session: { token: string; organizationId: string | null } | null,
    onSignedOut = () => undefined,
    onSignedIn: (shared: { token: string | null; organizationId: string | null }) => void = () => undefined,
  ) => {
    const channel = openSessionChannel({ current: () => session, onSignedOut, onSignedIn });
    if (!channel) throw new Error('no BroadcastChannel');
    opened.push(channel);
    return channel;
  };
  afterEach(() => opened.splice(0).forEach((channel) => channel.close()));

  it('gives a new tab the session of an open one', async () => {
    tab({ token: 'jwt-open-tab', organizationId: 'org-1' });
    const fresh = tab(null);
    await expect(fresh.ask(2_000)).resolves.toEqual({ token: 'jwt-open-tab', organizationId: 'org-1' });
  });

  it('answers nothing when no open tab is signed in', async () => {
    tab(null);
    const fresh = tab(null);
    await expect(fresh.ask(50)).resolves.toBeNull();
  });

  it('signs the other tabs out with the one signing out, not itself', async () => {
    const otherSignedOut = vi.fn();
    const selfSignedOut = vi.fn();
    tab({ token: 'jwt', organizationId: null }, otherSignedOut);
    const leaving = tab({ token: 'jwt', organizationId: null }, selfSignedOut);
    leaving.announceSignOut();
    await vi.waitFor(() => expect(otherSignedOut).toHaveBeenCalledTimes(1));
    expect(selfSignedOut).not.toHaveBeenCalled();
  });

  it('offers a new sign-in to the other tabs, not to itself', async () => {
    const signedInElsewhere = vi.fn();
    const own = vi.fn();
    tab(null, undefined, signedInElsewhere);
    const signingIn = tab(null, undefined, own);
    signingIn.announceSignIn({ token: 'jwt-new', organizationId: 'org-3' });
    await vi.waitFor(() => expect(signedInElsewhere).toHaveBeenCalledWith({ token: 'jwt-new', organizationId: 'org-3' }));
    expect(own).not.toHaveBeenCalled();
  });
});
