import { ADMIN_EMAIL, createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';
import type { UserView } from './user-rows';

describe('users procedures', () => {
  let h: AuthzHarness;
  const admin = { sub: 'a0a0a0a0-0000-4000-8000-00000000ad01', email: ADMIN_EMAIL, name: 'Operator' };
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.events.clear());

  describe('users.updateProfile', () => {
    it('changes the display name and emits user.profile-updated', async () => {
      const ada = h.person('ada');
      const view = await h.call<UserView>('users.updateProfile', { displayName: '  Countess Ada ' }, ada);
      expect(view).toMatchObject({ id: ada.sub, displayName: 'Countess Ada', email: ada.email, kind: 'HUMAN' });
      expect(h.events.published).toEqual([
        expect.objectContaining({ type: 'user.profile-updated', userId: ada.sub, payload: { userId: ada.sub, changes: ['displayName'] } }),
      ]);
      expect((await h.principal(ada)).displayName).toBe('Countess Ada');
    });

    it('rejects empty, blank and malformed input with 400', async () => {
      const erin = h.person('erin');
      await expect(h.call('users.updateProfile', {}, erin)).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(h.call('users.updateProfile', { displayName: '   ' }, erin)).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'displayName', code: 'required' })],
      });
      await expect(h.call('users.updateProfile', { displayName: 7, kind: 'SERVICE' }, erin)).rejects.toMatchObject({
        code: 'validation_failed',
        details: expect.arrayContaining([
          expect.objectContaining({ field: 'displayName', code: 'invalid_type' }),
          expect.objectContaining({ field: 'kind', code: 'unknown_field' }),
        ]),
      });
    });
  });

  describe('users.disable / users.enable', () => {
    it('a platform admin locks a user out and lets them back in; events carry who did it', async () => {
      const frank = h.person('frank');
      await h.principal(frank);
      const disabled = await h.call<UserView>('users.disable', { userId: frank.sub }, admin);
      expect(disabled.disabledAt).toMatch(/Z$/);
      await expect(h.call('me.get', {}, frank)).rejects.toMatchObject({ code: 'unauthorized', message: 'This account is disabled' });

      const enabled = await h.call<UserView>('users.enable', { userId: frank.sub }, admin);
      expect(enabled.disabledAt).toBeNull();
      await expect(h.call('me.get', {}, frank)).resolves.toBeDefined();
      expect(h.events.published.map((event) => [event.type, event.userId, event.payload])).toEqual([
        ['user.disabled', frank.sub, { userId: frank.sub, disabledBy: admin.sub }],
        ['user.enabled', frank.sub, { userId: frank.sub, enabledBy: admin.sub }],
      ]);
    });

    it('is idempotent: disabling twice emits once', async () => {
      const gina = h.person('gina');
      await h.principal(gina);
      await h.call('users.disable', { userId: gina.sub }, admin);
      await h.call('users.disable', { userId: gina.sub }, admin);
      expect(h.events.ofType('user.disabled')).toHaveLength(1);
    });

    it('only platform admins may do it (403); an admin cannot disable themselves (403)', async () => {
      const hank = h.person('hank');
      const ivy = h.person('ivy');
      await h.principal(ivy);
      await expect(h.call('users.disable', { userId: ivy.sub }, hank)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Only platform administrators may do this',
      });
      await expect(h.call('users.enable', { userId: ivy.sub }, hank)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(h.call('users.disable', { userId: admin.sub }, admin)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'You cannot disable your own account',
      });
    });

    it('404 for an unknown or deleted user, 400 for bad input', async () => {
      await expect(h.call('users.disable', { userId: 'nobody' }, admin)).rejects.toMatchObject({ code: 'not_found', message: 'User not found' });
      const gone = h.person('gone');
      await h.principal(gone);
      await h.sql('UPDATE users SET deleted_at = now() WHERE id = ?', [gone.sub]);
      await expect(h.call('users.enable', { userId: gone.sub }, admin)).rejects.toMatchObject({ code: 'not_found' });
      await expect(h.call('users.disable', {}, admin)).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'userId', code: 'required' })],
      });
    });
  });
});
