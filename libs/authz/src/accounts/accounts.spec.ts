import { ADMIN_EMAIL, createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';
import type { UserView } from '../users/user-rows';
import { PROCESS_ACCOUNT_DELETIONS } from './process-account-deletions';

interface Me {
  user: { id: string; kind: string; email: string; displayName: string; isPlatformAdmin: boolean; deletionScheduledFor: string | null };
  organizations: Array<{ id: string; name: string; slug: string; roleKeys: string[] }>;
  activeOrganization: { id: string; roleIds: string[]; permissions: string[] } | null;
}

describe('me.get', () => {
  let h: AuthzHarness;
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());

  it('returns the user, their organizations with role keys, and the active organization permissions, sorted', async () => {
    const owner = h.person('owner');
    const ada = h.person('ada');
    const zeta = await h.call<{ id: string }>('organizations.create', { name: 'Zeta' }, ada);
    const alpha = await h.call<{ id: string }>('organizations.create', { name: 'Alpha' }, owner);
    const { token } = await h.call<{ token: string }>('organizations.invite', { email: ada.email, roleKeys: ['read-only', 'member'] }, owner, alpha.id);
    await h.call('organizations.acceptInvite', { token }, ada);

    const me = await h.call<Me>('me.get', {}, ada, alpha.id);
    expect(me.user).toEqual({ id: ada.sub, kind: 'HUMAN', email: ada.email, displayName: 'ada', isPlatformAdmin: false, deletionScheduledFor: null });
    expect(me.organizations).toEqual([
      { id: alpha.id, name: 'Alpha', slug: 'alpha', roleKeys: ['member', 'read-only'] },
      { id: zeta.id, name: 'Zeta', slug: 'zeta', roleKeys: ['owner'] },
    ]);
    expect(me.activeOrganization).toMatchObject({ id: alpha.id });
    expect(me.activeOrganization!.roleIds).toHaveLength(2);
    expect(me.activeOrganization!.permissions).toEqual([
      'api-keys.manage',
      'data-models.read',
      'records.create',
      'records.delete',
      'records.read',
      'records.update',
    ]);

    const noOrg = await h.call<Me>('me.get', {}, ada);
    expect(noOrg.activeOrganization).toBeNull();
  });

  it('says whether the caller is a platform admin', async () => {
    const me = await h.call<Me>('me.get', {}, { sub: 'b1b1b1b1-0000-4000-8000-000000000001', email: ADMIN_EMAIL });
    expect(me.user.isPlatformAdmin).toBe(true);
  });

  it('404 for an organization the caller is not a member of; 401 for a disabled account; 400 for input', async () => {
    const who = h.person('me-errors');
    const other = await h.call<{ id: string }>('organizations.create', { name: 'Elsewhere' }, h.person('elsewhere'));
    await expect(h.call('me.get', {}, who, other.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.call('me.get', { verbose: true }, who)).rejects.toMatchObject({ code: 'validation_failed' });
    await h.sql('UPDATE users SET disabled_at = now() WHERE id = ?', [who.sub]);
    await expect(h.call('me.get', {}, who)).rejects.toMatchObject({ code: 'unauthorized' });
  });
});

describe('account deletion', () => {
  let h: AuthzHarness;
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.events.clear());

  it('requestDeletion schedules the deletion 30 days ahead, once; cancelDeletion clears it', async () => {
    const ada = h.person('ada');
    const requested = await h.call<UserView>('users.requestDeletion', {}, ada);
    const days = (Date.parse(requested.deletionScheduledFor!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThanOrEqual(30);
    const again = await h.call<UserView>('users.requestDeletion', {}, ada);
    expect(again.deletionScheduledFor).toBe(requested.deletionScheduledFor);
    expect(h.events.published).toEqual([
      expect.objectContaining({
        type: 'user.deletion-requested',
        userId: ada.sub,
        payload: { userId: ada.sub, scheduledFor: requested.deletionScheduledFor },
      }),
    ]);

    h.events.clear();
    const canceled = await h.call<UserView>('users.cancelDeletion', {}, ada);
    expect(canceled.deletionScheduledFor).toBeNull();
    await h.call('users.cancelDeletion', {}, ada);
    expect(h.events.published).toEqual([
      expect.objectContaining({ type: 'user.deletion-canceled', userId: ada.sub, payload: { userId: ada.sub } }),
    ]);
  });

  it('rejects input with 400', async () => {
    await expect(h.call('users.requestDeletion', { when: 'now' }, h.person('x'))).rejects.toMatchObject({ code: 'validation_failed' });
  });

  const processDueDeletions = async () =>
    (await h.system<{ processed: number }>('accounts.processDueDeletions', {}, 'process-account-deletions', [PROCESS_ACCOUNT_DELETIONS])).processed;
  const makeDue = (who: { sub: string }, ago = '1 minute') =>
    h.sql(`UPDATE users SET deletion_scheduled_for = now() - ?::interval WHERE id = ?`, [ago, who.sub]);

  it('accounts.processDueDeletions deletes exactly the accounts whose grace period is over, each with user.deleted', async () => {
    const due = h.person('due');
    const notYet = h.person('not-yet');
    const bystander = h.person('bystander');
    for (const who of [due, notYet]) await h.call('users.requestDeletion', {}, who);
    await h.principal(bystander);
    await makeDue(due);
    h.events.clear();

    await expect(processDueDeletions()).resolves.toBe(1);
    expect(h.events.published).toEqual([
      expect.objectContaining({
        type: 'user.deleted',
        userId: due.sub,
        correlationId: 'test-process-account-deletions',
        payload: { userId: due.sub, deletedBy: due.sub },
      }),
    ]);
    // Persisted in the task's transaction (the webhook outbox), not only published.
    expect(h.events.persisted).toEqual(h.events.published);
    await expect(processDueDeletions()).resolves.toBe(0);
    expect(h.events.ofType('user.deleted')).toHaveLength(1);
    await expect(h.call('me.get', {}, due)).rejects.toMatchObject({ code: 'unauthorized', message: 'This account has been deleted' });
    await expect(h.call('me.get', {}, notYet)).resolves.toBeDefined();
    await expect(h.call('me.get', {}, bystander)).resolves.toBeDefined();

    // Once its grace period is over too, the other one goes.
    await makeDue(notYet, '1 second');
    await expect(processDueDeletions()).resolves.toBe(1);
    await expect(h.call('me.get', {}, notYet)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('is a system procedure: no person may run it, nor a system principal without its permission', async () => {
    const due = h.person('eager');
    await h.call('users.requestDeletion', {}, due);
    await makeDue(due);
    await expect(h.call('accounts.processDueDeletions', {}, h.person('curious'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.system('accounts.processDueDeletions', {}, 'webhook-delivery', [])).rejects.toMatchObject({ code: 'forbidden' });
    await expect(h.call('me.get', {}, due)).resolves.toBeDefined();
    await h.call('users.cancelDeletion', {}, due);
  });

  it('a deleted account releases its address: a new identity provider account with it signs in', async () => {
    const gone = h.person('gone');
    await h.principal(gone);
    await h.call('users.requestDeletion', {}, gone);
    await makeDue(gone);
    await expect(processDueDeletions()).resolves.toBe(1);

    const returning = { sub: 'c3c3c3c3-0000-4000-8000-0000000000c3', email: gone.email.toUpperCase(), name: 'Back again' };
    await expect(h.call<Me>('me.get', {}, returning)).resolves.toMatchObject({ user: { id: returning.sub, email: gone.email } });
    await expect(h.call('me.get', {}, gone)).rejects.toMatchObject({ code: 'unauthorized', message: 'This account has been deleted' });
  });

  it('anonymises the account, ends its memberships (grants with them) and says so per organization left', async () => {
    const leaving = h.person('leaving');
    const founder = h.person('founder');
    const first = await h.call<{ id: string }>('organizations.create', { name: 'Leaving One' }, leaving);
    const second = await h.call<{ id: string }>('organizations.create', { name: 'Leaving Two' }, founder);
    await h.sql('INSERT INTO memberships (id, organization_id, user_id) VALUES (gen_random_uuid(), ?, ?)', [second.id, leaving.sub]);
    await h.call('users.requestDeletion', {}, leaving);
    await makeDue(leaving);
    h.events.clear();

    await expect(processDueDeletions()).resolves.toBe(1);
    const [row] = await h.sql<{ display_name: string; email: string; email_verified: boolean; deleted: boolean }>(
      'SELECT display_name, email, email_verified, deleted_at IS NOT NULL AS deleted FROM users WHERE id = ?',
      [leaving.sub],
    );
    expect(row).toEqual({ display_name: 'Deleted user', email: expect.stringMatching(/^deleted-[0-9a-f]{32}@deleted\.invalid$/), email_verified: false, deleted: true });
    expect(row.email).not.toContain(leaving.email.split('@')[0]);
    await expect(h.sql('SELECT 1 FROM memberships WHERE user_id = ?', [leaving.sub])).resolves.toEqual([]);
    await expect(h.sql('SELECT 1 FROM role_grants g JOIN memberships m ON m.id = g.membership_id WHERE m.user_id = ?', [leaving.sub])).resolves.toEqual([]);
    await expect(h.sql('SELECT 1 FROM memberships WHERE user_id = ?', [founder.sub])).resolves.toHaveLength(1);
    const removed = [first.id, second.id].sort().map((organizationId) =>
      expect.objectContaining({
        type: 'organization.member-removed',
        organizationId,
        userId: leaving.sub,
        payload: { organizationId, userId: leaving.sub, removedBy: leaving.sub },
      }),
    );
    expect(h.events.published).toEqual([
      ...removed,
      expect.objectContaining({ type: 'user.deleted', payload: { userId: leaving.sub, deletedBy: leaving.sub } }),
    ]);
  });

  it('two runs at once delete each account once', async () => {
    const people = [h.person('twin-a'), h.person('twin-b'), h.person('twin-c')];
    for (const who of people) {
      await h.call('users.requestDeletion', {}, who);
      await makeDue(who);
    }
    h.events.clear();
    const runs = await Promise.all([processDueDeletions(), processDueDeletions()]);
    expect(runs[0] + runs[1]).toBe(3);
    expect(h.events.ofType('user.deleted').map((event) => event.userId).sort()).toEqual(people.map((who) => who.sub).sort());
  });

  it('a disabled account keeps its address', async () => {
    const locked = h.person('locked');
    await h.principal(locked);
    await h.sql('UPDATE users SET disabled_at = now() WHERE id = ?', [locked.sub]);
    await expect(processDueDeletions()).resolves.toBe(0);
    const pretender = { sub: 'c4c4c4c4-0000-4000-8000-0000000000c4', email: locked.email };
    await expect(h.call('me.get', {}, pretender)).rejects.toMatchObject({ code: 'conflict' });
  });
});
