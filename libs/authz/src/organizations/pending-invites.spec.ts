import { createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';

interface PendingInvite {
  id: string;
  email: string;
  roleKeys: string[];
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

describe('organizations.listInvites / cancelInvite', () => {
  let h: AuthzHarness;
  let owner: ReturnType<AuthzHarness['person']>;
  let orgId: string;
  beforeAll(async () => {
    h = await createAuthzHarness();
    owner = h.person('pending-owner');
    orgId = (await h.call<{ id: string }>('organizations.create', { name: 'Pending Co' }, owner)).id;
  });
  afterAll(() => h.close());

  const invite = (email: string, roleKeys?: string[]) =>
    h.call<{ invite: { id: string }; token: string }>('organizations.invite', { email, ...(roleKeys ? { roleKeys } : {}) }, owner, orgId);
  const list = (as = owner) => h.call<{ items: PendingInvite[] }>('organizations.listInvites', {}, as, orgId);

  it('lists the invitations not yet accepted, newest first, with their roles and whether they expired', async () => {
    const older = await invite('older@example.test', ['read-only', 'member']);
    const newer = await invite('newer@example.test');
    await h.sql("UPDATE invites SET expires_at = now() - interval '1 second', created_at = now() - interval '8 days' WHERE id = ?", [older.invite.id]);
    const accepted = h.person('accepted');
    await h.call('organizations.acceptInvite', { token: (await invite(accepted.email)).token }, accepted);

    const { items } = await list();
    expect(items.map((item) => item.email)).toEqual(['newer@example.test', 'older@example.test']);
    expect(items[0]).toMatchObject({ id: newer.invite.id, roleKeys: ['member'], invitedBy: owner.sub, expired: false });
    expect(items[1]).toMatchObject({ id: older.invite.id, roleKeys: ['member', 'read-only'], expired: true });
    expect(items[1].expiresAt).toMatch(/Z$/);
  });

  it('cancels a pending invitation: its link stops working; a second cancel is a 404', async () => {
    const zoe = h.person('zoe');
    const sent = await invite(zoe.email);
    await expect(h.call('organizations.cancelInvite', { id: sent.invite.id }, owner, orgId)).resolves.toEqual({
      id: sent.invite.id,
      canceled: true,
    });
    expect((await list()).items.map((item) => item.id)).not.toContain(sent.invite.id);
    await expect(h.call('organizations.acceptInvite', { token: sent.token }, zoe)).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.call('organizations.cancelInvite', { id: sent.invite.id }, owner, orgId)).rejects.toMatchObject({
      code: 'not_found',
      message: 'Invite not found',
    });
    await expect(h.call('organizations.cancelInvite', { id: 'not-a-uuid' }, owner, orgId)).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });

  it("needs members.manage, and never reaches another organization's invitations", async () => {
    const member = h.person('pending-member');
    await h.call('organizations.acceptInvite', { token: (await invite(member.email)).token }, member);
    await expect(list(member)).rejects.toMatchObject({ code: 'forbidden', message: 'Missing permission members.manage' });

    const stranger = h.person('other-owner');
    const otherOrg = (await h.call<{ id: string }>('organizations.create', { name: 'Other Co' }, stranger)).id;
    const mine = await invite('kept@example.test');
    await expect(h.call('organizations.cancelInvite', { id: mine.invite.id }, stranger, otherOrg)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await h.call<{ items: PendingInvite[] }>('organizations.listInvites', {}, stranger, otherOrg)).items).toEqual([]);
    expect((await list()).items.map((item) => item.id)).toContain(mine.invite.id);
  });
});
