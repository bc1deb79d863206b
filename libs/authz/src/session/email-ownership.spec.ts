import { silentLogger } from '@mrp/platform/testing';
import type { CreatedApiKey } from '../api-keys/api-key-view';
import { resolveApiKeyPrincipal } from '../api-keys/resolve-api-key-principal';
import { ADMIN_EMAIL, createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';
import { updateProfile } from '../users/user-procedures';
import { resolveSessionPrincipal } from './resolve-session-principal';
import type { SessionClaims } from './session-verifier';

/*
 * DESIGN 3: humans are owned by the identity provider. Their email is the session's claim, no
 * procedure changes it, and platform-admin status and invite binding come from the current
 * session's verified claim, never from a stored address.
 */
describe('the email address belongs to the identity provider', () => {
  let h: AuthzHarness;
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.events.clear());

  const storedEmail = async (userId: string) =>
    (await h.sql<{ email: string }>('SELECT email FROM users WHERE id = ?', [userId]))[0]?.email;
  const unverified = (who: SessionClaims): SessionClaims => ({ ...who, emailVerified: false });
  /** The identity behind ADMIN_EMAIL, as the identity provider issues it. */
  const realAdmin = (): SessionClaims => ({ sub: 'a7a7a7a7-0000-4000-8000-0000000000ad', email: ADMIN_EMAIL, name: 'Operator' });

  async function inviteTo(email: string): Promise<{ organizationId: string; token: string }> {
    const owner = h.person('inviter');
    const org = await h.call<{ id: string }>('organizations.create', { name: `Org of ${owner.email}` }, owner);
    const { token } = await h.call<{ token: string }>('organizations.invite', { email }, owner, org.id);
    return { organizationId: org.id, token };
  }

  describe('users.updateProfile does not change it', () => {
    it("refuses a platform admin's address (400 read_only): the caller gains nothing and the admin keeps their account", async () => {
      const mallory = h.person('mallory');
      const victim = h.person('victim');
      await h.principal(victim);
      await expect(h.call('users.updateProfile', { email: ADMIN_EMAIL }, mallory)).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'email', code: 'read_only', message: expect.stringContaining('identity provider') }],
      });
      expect(await storedEmail(mallory.sub)).toBe(mallory.email);
      await expect(h.principal(mallory)).resolves.toMatchObject({ isPlatformAdmin: false });
      await expect(h.call('users.disable', { userId: victim.sub }, mallory)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(h.principal(realAdmin())).resolves.toMatchObject({ isPlatformAdmin: true });
      expect(h.events.published).toEqual([]);
    });

    it('refuses an email even with a display name beside it, changing neither', async () => {
      const ned = h.person('ned');
      await expect(h.call('users.updateProfile', { displayName: 'Ned', email: ned.email }, ned)).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'email', code: 'read_only' })],
      });
      await expect(h.principal(ned)).resolves.toMatchObject({ displayName: 'ned', email: ned.email });
    });

    it('says so in its input schema', () => {
      const schema = updateProfile.input as { properties: Record<string, { readOnly?: boolean; description?: string }> };
      expect(schema.properties.email).toMatchObject({ readOnly: true, description: expect.stringContaining('identity provider') });
    });
  });

  describe('platform-admin status comes from the verified claim of the current session', () => {
    it('a stored address equal to an admin address makes nobody an admin', async () => {
      const mallory = h.person('stored-admin');
      await h.principal(mallory);
      // However it got there (an older version let users edit it), a stored address grants nothing.
      await h.sql('UPDATE users SET email = ?, email_verified = false WHERE id = ?', [ADMIN_EMAIL.toUpperCase(), mallory.sub]);
      await expect(h.principal(mallory)).resolves.toMatchObject({ isPlatformAdmin: false, email: mallory.email });
    });

    it('an unverified claim of an admin address grants nothing and takes the address from nobody', async () => {
      const pretender = { sub: 'b8b8b8b8-0000-4000-8000-0000000000b8', email: ADMIN_EMAIL, name: 'Pretender' };
      await expect(h.principal(unverified(pretender))).resolves.toMatchObject({ isPlatformAdmin: false });
      await expect(h.call('users.disable', { userId: pretender.sub }, unverified(pretender))).rejects.toMatchObject({ code: 'forbidden' });
      // The real admin signs in afterwards, undisturbed; the pretender's next unverified session is still no admin.
      await expect(h.principal(realAdmin())).resolves.toMatchObject({ isPlatformAdmin: true });
      await expect(h.principal(unverified(pretender))).resolves.toMatchObject({ isPlatformAdmin: false });
    });

    it('an API key never carries platform-admin status, even when its owner is an admin', async () => {
      const org = await h.call<{ id: string }>('organizations.create', { name: 'Admin Keys Co' }, realAdmin());
      const key = await h.call<CreatedApiKey>('apiKeys.create', { name: 'ops', fullAccess: true }, realAdmin(), org.id);
      const principal = await resolveApiKeyPrincipal(h.db.orm.em.fork(), key.token, { serviceAccountsEnabled: false, logger: silentLogger });
      expect(principal).toMatchObject({ userId: realAdmin().sub, isPlatformAdmin: false });
    });
  });

  describe('invite binding comes from the verified claim of the current session', () => {
    it('an invite cannot be taken by changing the profile email to the invitee address', async () => {
      const invitee = h.person('invitee');
      const mallory = h.person('mallory-invite');
      const { token } = await inviteTo(invitee.email);
      await expect(h.call('users.updateProfile', { email: invitee.email }, mallory)).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(h.call('organizations.acceptInvite', { token }, mallory)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'This invite was sent to a different email address',
      });
      await expect(h.call('organizations.acceptInvite', { token }, invitee)).resolves.toMatchObject({ roleKeys: ['member'] });
    });

    it('a stored address equal to the invitee address binds nothing', async () => {
      const invitee = h.person('stored-invitee');
      const mallory = h.person('stored-mallory');
      await h.principal(mallory);
      const { token } = await inviteTo(invitee.email);
      await h.sql('UPDATE users SET email = ?, email_verified = false WHERE id = ?', [invitee.email, mallory.sub]);
      await expect(h.call('organizations.acceptInvite', { token }, mallory)).rejects.toMatchObject({ code: 'forbidden' });
    });

    it('an unverified claim binds no invite; the same person verified accepts it', async () => {
      const invitee = h.person('unverified-invitee');
      const { token } = await inviteTo(invitee.email);
      await expect(h.call('organizations.acceptInvite', { token }, unverified(invitee))).rejects.toMatchObject({
        code: 'forbidden',
        message: 'This invite needs an email address your identity provider has verified',
      });
      await expect(h.call('organizations.acceptInvite', { token }, invitee)).resolves.toMatchObject({ roleKeys: ['member'] });
    });
  });

  describe('when the identity provider changes the address', () => {
    it('the next verified session updates the stored address and emits user.email-changed, once', async () => {
      const ada = h.person('ada');
      await h.principal(ada);
      const moved = { ...ada, email: `Moved-${ada.email}` };
      // Two first requests after the change, at once: one change, one event.
      const principals = await Promise.all([h.principal(moved), h.principal(moved)]);
      expect(principals.map((principal) => principal.email)).toEqual([moved.email.toLowerCase(), moved.email.toLowerCase()]);
      await h.principal(moved);
      expect(await storedEmail(ada.sub)).toBe(moved.email.toLowerCase());
      const changed = [{ type: 'user.email-changed', userId: ada.sub, payload: { userId: ada.sub, previousEmail: ada.email, email: moved.email.toLowerCase() } }];
      expect(h.events.persisted).toEqual([expect.objectContaining(changed[0])]);
      expect(h.events.published).toEqual([expect.objectContaining(changed[0])]);
    });

    it('the new address is the one invites and admin status follow; the old one binds nothing', async () => {
      const grace = h.person('grace');
      await h.principal(grace);
      const oldInvite = await inviteTo(grace.email);
      const newInvite = await inviteTo(`new-${grace.email}`);
      const moved = { ...grace, email: `new-${grace.email}` };
      await expect(h.call('organizations.acceptInvite', { token: oldInvite.token }, moved)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(h.call('organizations.acceptInvite', { token: newInvite.token }, moved)).resolves.toBeDefined();

      const promoted = h.person('promoted');
      await h.principal(promoted);
      const anotherAdmin = new Set([ADMIN_EMAIL, `boss-${promoted.email}`]);
      const asBoss = { ...promoted, email: `boss-${promoted.email}` };
      await expect(
        resolveSessionPrincipal(h.db.orm.em.fork(), asBoss, { organizationId: null, platformAdminEmails: anotherAdmin, dispatcher: h.events }),
      ).resolves.toMatchObject({ isPlatformAdmin: true, email: asBoss.email });
    });

    it('an unverified new address changes nothing', async () => {
      const hal = h.person('hal');
      await h.principal(hal);
      await expect(h.principal(unverified({ ...hal, email: `unverified-${hal.email}` }))).resolves.toMatchObject({ email: hal.email });
      expect(await storedEmail(hal.sub)).toBe(hal.email);
      expect(h.events.published).toEqual([]);
    });
  });

  describe('a claim that collides with another account is refused without harming that account', () => {
    it('refuses an address another account holds (409) and leaves both accounts as they were', async () => {
      const admin = realAdmin();
      await h.principal(admin);
      const carol = h.person('carol');
      await h.principal(carol);
      await expect(h.principal({ ...carol, email: ADMIN_EMAIL.toUpperCase() })).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringContaining('already belongs to another account'),
      });
      expect(await storedEmail(carol.sub)).toBe(carol.email);
      await expect(h.principal(carol)).resolves.toMatchObject({ email: carol.email, isPlatformAdmin: false });
      await expect(h.principal(admin)).resolves.toMatchObject({ email: ADMIN_EMAIL, isPlatformAdmin: true });
      expect(await storedEmail(admin.sub)).toBe(ADMIN_EMAIL);
      expect(h.events.published).toEqual([]);
    });

    it('refuses a new account whose verified address another account holds, creating nothing', async () => {
      const owner = h.person('holder');
      await h.principal(owner);
      const newcomer = { sub: 'c9c9c9c9-0000-4000-8000-0000000000c9', email: owner.email.toUpperCase() };
      await expect(h.principal(newcomer)).rejects.toMatchObject({ code: 'conflict' });
      expect(await h.sql('SELECT id FROM users WHERE id = ?', [newcomer.sub])).toHaveLength(0);
      await expect(h.principal(owner)).resolves.toMatchObject({ email: owner.email });
    });
  });
});
