import { SignJWT } from 'jose';
import { ADMIN_EMAIL, createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';
import { createSessionVerifier } from './session-verifier';
import { loadOrganizationAccess } from '../access/organization-access';

describe('resolveSessionPrincipal', () => {
  let h: AuthzHarness;
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());

  const userRow = async (id: string) =>
    (await h.sql<{ id: string; email: string; kind: string; display_name: string }>(
      'SELECT id, email, kind, display_name FROM users WHERE id = ?',
      [id],
    ))[0];

  it('provisions a human on first sight: id = sub, email lowercased, displayName = name', async () => {
    const sub = '0b9f5a4e-1111-4c1e-9d3f-2b6a7c8d9e0f';
    const principal = await h.principal({ sub, email: 'Grace@Example.TEST', name: 'Grace Hopper' });
    expect(principal).toMatchObject({
      userId: sub,
      kind: 'HUMAN',
      email: 'grace@example.test',
      displayName: 'Grace Hopper',
      isPlatformAdmin: false,
      organizationId: null,
      roleIds: [],
      credential: { type: 'session', verifiedEmail: 'grace@example.test' },
    });
    expect(principal.permissions.size).toBe(0);
    expect(await userRow(sub)).toEqual({ id: sub, email: 'grace@example.test', kind: 'HUMAN', display_name: 'Grace Hopper' });
  });

  it('uses the email as display name when the token has no name, and is idempotent', async () => {
    const who = { sub: '0b9f5a4e-2222-4c1e-9d3f-2b6a7c8d9e0f', email: 'nameless@example.test' };
    const [first, second] = await Promise.all([h.principal(who), h.principal(who)]);
    expect(first.displayName).toBe('nameless@example.test');
    expect(second.userId).toBe(first.userId);
    expect(await h.sql('SELECT id FROM users WHERE id = ?', [who.sub])).toHaveLength(1);
  });

  it('refuses a new sub whose email already belongs to another account', async () => {
    const owner = h.person('taken');
    await h.principal(owner);
    const another = '0b9f5a4e-3333-4c1e-9d3f-2b6a7c8d9e0f';
    await expect(h.principal({ sub: another, email: owner.email.toUpperCase() })).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await h.sql('SELECT id FROM users WHERE id = ?', [another])).toHaveLength(0);
  });

  it('refuses a disabled account and a deleted account, saying which', async () => {
    const disabled = h.person('disabled');
    const deleted = h.person('deleted');
    await h.principal(disabled);
    await h.principal(deleted);
    await h.sql('UPDATE users SET disabled_at = now() WHERE id = ?', [disabled.sub]);
    await h.sql('UPDATE users SET deleted_at = now() WHERE id = ?', [deleted.sub]);
    await expect(h.principal(disabled)).rejects.toMatchObject({ code: 'unauthorized', message: 'This account is disabled' });
    await expect(h.principal(deleted)).rejects.toMatchObject({ code: 'unauthorized', message: 'This account has been deleted' });
  });

  it("refuses a disabled user's session token end to end", async () => {
    const secret = 'a-session-secret-of-at-least-32-characters';
    const verifier = createSessionVerifier({ jwtSecret: secret });
    const who = h.person('locked-out');
    const token = await new SignJWT({ email: who.email, name: who.name })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(who.sub)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(secret));
    await expect(h.principal(await verifier.verify(token))).resolves.toMatchObject({ userId: who.sub });
    await h.sql('UPDATE users SET disabled_at = now() WHERE id = ?', [who.sub]);
    await expect(h.principal(await verifier.verify(token))).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('marks platform admins by email', async () => {
    const admin = { sub: 'f6a1c2d3-0000-4c1e-9d3f-2b6a7c8d9e0f', email: ADMIN_EMAIL.toUpperCase() };
    await expect(h.principal(admin)).resolves.toMatchObject({ isPlatformAdmin: true });
  });

  it('loads role ids and the union of live role permissions in the active organization', async () => {
    const owner = h.person('owner');
    const member = h.person('member');
    const org = await h.call<{ id: string }>('organizations.create', { name: 'Access Co' }, owner);
    const ownerPrincipal = await h.principal(owner, org.id);
    expect([...ownerPrincipal.permissions].sort()).toHaveLength(15);
    expect(ownerPrincipal.roleIds).toHaveLength(1);

    await h.principal(member);
    const roles = await h.sql<{ id: string; key: string }>('SELECT id, key FROM roles WHERE organization_id = ?', [org.id]);
    const roleId = (key: string) => roles.find((role) => role.key === key)!.id;
    const [membership] = await h.sql<{ id: string }>(
      'INSERT INTO memberships (id, organization_id, user_id) VALUES (gen_random_uuid(), ?, ?) RETURNING id',
      [org.id, member.sub],
    );
    for (const key of ['member', 'read-only']) {
      await h.sql("INSERT INTO role_grants (id, membership_id, role_id, granted_by) VALUES (gen_random_uuid(), ?, ?, 'test')", [
        membership.id,
        roleId(key),
      ]);
    }
    const principal = await h.principal(member, org.id);
    expect([...principal.roleIds]).toEqual([roleId('member'), roleId('read-only')].sort());
    expect([...principal.permissions].sort()).toEqual([
      'api-keys.manage',
      'data-models.read',
      'records.create',
      'records.delete',
      'records.read',
      'records.update',
    ]);
    await expect(loadOrganizationAccess(h.db.orm.em.fork(), member.sub, org.id)).resolves.toMatchObject({
      roleIds: principal.roleIds,
      permissions: [...principal.permissions].sort(),
    });
  });

  it('answers a non-member, an unknown and a malformed organization id with the same 404', async () => {
    const stranger = h.person('stranger');
    const other = await h.call<{ id: string }>('organizations.create', { name: 'Private Co' }, h.person('private-owner'));
    for (const organizationId of [other.id, '0190a000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      await expect(h.principal(stranger, organizationId)).rejects.toMatchObject({
        code: 'not_found',
        message: 'Organization not found',
      });
    }
    await expect(loadOrganizationAccess(h.db.orm.em.fork(), stranger.sub, 'not-a-uuid')).resolves.toBeNull();
  });

  it('a member with no roles left is still a member, with no permissions', async () => {
    const owner = h.person('owner2');
    const org = await h.call<{ id: string }>('organizations.create', { name: 'Bare Co' }, owner);
    await h.sql('DELETE FROM role_grants WHERE membership_id IN (SELECT id FROM memberships WHERE organization_id = ?)', [org.id]);
    const principal = await h.principal(owner, org.id);
    expect(principal.roleIds).toEqual([]);
    expect(principal.permissions.size).toBe(0);
  });
});
