import { newServiceAccountId, serviceAccountEmail } from '../service-accounts/service-account-identity';
import { createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';
import { slugFromName } from './slug';

interface Org {
  id: string;
  name: string;
  slug: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

describe('slugFromName', () => {
  it.each([
    ['Acme Café & Co.', 'acme-cafe-co'],
    ['  --Hello   World--  ', 'hello-world'],
    ['日本', ''],
    ['x'.repeat(80), 'x'.repeat(63)],
  ])('%s -> %s', (name, slug) => expect(slugFromName(name)).toBe(slug));
});

describe('organizations.create / get / update', () => {
  let h: AuthzHarness;
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.events.clear());

  it('creates the organization, its four built-in roles and the caller as owner, and emits two events', async () => {
    const ada = h.person('ada');
    const org = await h.call<Org>('organizations.create', { name: '  Analytical Engines  ' }, ada);
    expect(org).toMatchObject({ name: 'Analytical Engines', slug: 'analytical-engines', createdBy: ada.sub });
    expect(org.createdAt).toMatch(/Z$/);

    const roles = await h.sql<{ key: string; built_in: boolean }>(
      'SELECT key, built_in FROM roles WHERE organization_id = ? ORDER BY key',
      [org.id],
    );
    expect(roles).toEqual([
      { key: 'admin', built_in: true },
      { key: 'member', built_in: true },
      { key: 'owner', built_in: true },
      { key: 'read-only', built_in: true },
    ]);
    const me = await h.call<{ organizations: Array<{ id: string; roleKeys: string[] }> }>('me.get', {}, ada);
    expect(me.organizations).toEqual([{ id: org.id, name: 'Analytical Engines', slug: 'analytical-engines', roleKeys: ['owner'] }]);

    expect(h.events.published.map((event) => event.type)).toEqual(['organization.created', 'organization.member-joined']);
    expect(h.events.published[0]).toMatchObject({
      organizationId: org.id,
      payload: { organizationId: org.id, name: 'Analytical Engines', slug: 'analytical-engines', createdBy: ada.sub },
    });
    expect(h.events.published[1].payload).toEqual({ organizationId: org.id, userId: ada.sub, roleKeys: ['owner'] });
  });

  it('takes an explicit slug and refuses a taken one with 409, writing nothing', async () => {
    const who = h.person('slugger');
    await h.call('organizations.create', { name: 'First', slug: 'shared-slug' }, who);
    await expect(h.call('organizations.create', { name: 'Shared Slug' }, who)).rejects.toMatchObject({
      code: 'conflict',
      message: 'The slug "shared-slug" is already taken',
    });
    expect(await h.sql("SELECT id FROM organizations WHERE name = 'Shared Slug'")).toHaveLength(0);
  });

  it('rejects bad input with 400 and every problem listed', async () => {
    const who = h.person('bad-input');
    await expect(h.call('organizations.create', { name: '', slug: 'Not A Slug', extra: true }, who)).rejects.toMatchObject({
      code: 'validation_failed',
      details: expect.arrayContaining([
        expect.objectContaining({ field: 'name', code: 'invalid_format' }),
        expect.objectContaining({ field: 'slug', code: 'invalid_format' }),
        expect.objectContaining({ field: 'extra', code: 'unknown_field' }),
      ]),
    });
    await expect(h.call('organizations.create', { name: '   ' }, who)).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'name', code: 'required' })],
    });
    await expect(h.call('organizations.create', { name: '日本' }, who)).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'slug', code: 'required' })],
    });
  });

  it('get returns the organization and its members to any member; 404 to anyone else', async () => {
    const owner = h.person('get-owner');
    const org = await h.call<Org>('organizations.create', { name: 'Visible Co' }, owner);
    const got = await h.call<Org & { members: unknown[] }>('organizations.get', {}, owner, org.id);
    expect(got).toMatchObject({ id: org.id, name: 'Visible Co', slug: 'visible-co' });
    expect(got.members).toEqual([
      {
        userId: owner.sub,
        kind: 'HUMAN',
        email: owner.email,
        displayName: owner.name,
        roleKeys: ['owner'],
        joinedAt: expect.stringMatching(/Z$/),
        disabled: false,
      },
    ]);
    await expect(h.call('organizations.get', {}, h.person('outsider'), org.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.call('organizations.get', {}, owner)).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('update changes name and slug, emits the changed keys, and needs organization.manage', async () => {
    const owner = h.person('upd-owner');
    const org = await h.call<Org>('organizations.create', { name: 'Old Name' }, owner);
    h.events.clear();
    const updated = await h.call<Org>('organizations.update', { name: 'New Name', slug: 'old-name' }, owner, org.id);
    expect(updated).toMatchObject({ name: 'New Name', slug: 'old-name' });
    expect(h.events.published).toEqual([
      expect.objectContaining({ type: 'organization.updated', payload: { organizationId: org.id, changes: ['name'] } }),
    ]);

    h.events.clear();
    await h.call('organizations.update', { name: 'New Name' }, owner, org.id);
    expect(h.events.published).toEqual([]);

    await h.call('organizations.create', { name: 'Other', slug: 'other-slug' }, owner);
    await expect(h.call('organizations.update', { slug: 'other-slug' }, owner, org.id)).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(h.call('organizations.update', {}, owner, org.id)).rejects.toMatchObject({ code: 'validation_failed' });

    // An admin holds everything but organization.manage.
    const admin = h.person('upd-admin');
    const { token } = await h.call<{ token: string }>('organizations.invite', { email: admin.email, roleKeys: ['admin'] }, owner, org.id);
    await h.call('organizations.acceptInvite', { token }, admin);
    await expect(h.call('organizations.update', { name: 'Hijacked' }, admin, org.id)).rejects.toMatchObject({
      code: 'forbidden',
      message: 'Missing permission organization.manage',
    });
  });
});

describe('organizations.invite / acceptInvite', () => {
  let h: AuthzHarness;
  let owner: ReturnType<AuthzHarness['person']>;
  let org: Org;
  beforeAll(async () => {
    h = await createAuthzHarness();
    owner = h.person('inviter');
    org = await h.call<Org>('organizations.create', { name: 'Invite Co' }, owner);
  });
  afterAll(() => h.close());
  beforeEach(() => h.events.clear());

  const invite = (input: object, as = owner) =>
    h.call<{ invite: { id: string; email: string; roleKeys: string[]; expiresAt: string }; token: string }>(
      'organizations.invite',
      input,
      as,
      org.id,
    );

  it('lets a second human join with the chosen roles; the token is stored only as a hash', async () => {
    const bob = h.person('bob');
    const sent = await invite({ email: bob.email.toUpperCase(), roleKeys: ['read-only', 'member'] });
    expect(sent.token).toMatch(/^inv_[A-Za-z0-9_-]{43}$/);
    expect(sent.invite).toMatchObject({ email: bob.email, roleKeys: ['member', 'read-only'] });
    const days = (Date.parse(sent.invite.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    const [stored] = await h.sql<{ token_hash: string }>('SELECT token_hash FROM invites WHERE id = ?', [sent.invite.id]);
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.token_hash).not.toContain(sent.token);
    expect(h.events.published).toEqual([
      expect.objectContaining({
        type: 'organization.invite-sent',
        organizationId: org.id,
        payload: { organizationId: org.id, inviteId: sent.invite.id, email: bob.email, roleKeys: ['member', 'read-only'], invitedBy: owner.sub },
      }),
    ]);

    h.events.clear();
    const accepted = await h.call<{ organization: Org; roleKeys: string[] }>('organizations.acceptInvite', { token: sent.token }, bob);
    expect(accepted).toMatchObject({ organization: { id: org.id, name: 'Invite Co' }, roleKeys: ['member', 'read-only'] });
    expect(h.events.published.map((event) => [event.type, event.payload])).toEqual([
      ['organization.invite-accepted', { organizationId: org.id, inviteId: sent.invite.id, userId: bob.sub }],
      ['organization.member-joined', { organizationId: org.id, userId: bob.sub, roleKeys: ['member', 'read-only'] }],
    ]);
    const principal = await h.principal(bob, org.id);
    expect(principal.permissions.has('records.create')).toBe(true);
    expect(principal.permissions.has('members.manage')).toBe(false);

    // Single use.
    await expect(h.call('organizations.acceptInvite', { token: sent.token }, bob)).rejects.toMatchObject({
      code: 'conflict',
      message: 'This invite has already been used',
    });
  });

  it('invites as member by default', async () => {
    const carol = h.person('carol');
    const sent = await invite({ email: carol.email });
    expect(sent.invite.roleKeys).toEqual(['member']);
    await expect(h.call('organizations.acceptInvite', { token: sent.token }, carol)).resolves.toMatchObject({ roleKeys: ['member'] });
  });

  it('refuses the token to someone with another email address', async () => {
    const dave = h.person('dave');
    const sent = await invite({ email: dave.email });
    await expect(h.call('organizations.acceptInvite', { token: sent.token }, h.person('eve'))).rejects.toMatchObject({
      code: 'forbidden',
      message: 'This invite was sent to a different email address',
    });
    await expect(h.call('organizations.acceptInvite', { token: sent.token }, dave)).resolves.toBeDefined();
  });

  it('refuses an expired or unknown token', async () => {
    const frank = h.person('frank');
    const sent = await invite({ email: frank.email });
    await h.sql("UPDATE invites SET expires_at = now() - interval '1 second' WHERE id = ?", [sent.invite.id]);
    await expect(h.call('organizations.acceptInvite', { token: sent.token }, frank)).rejects.toMatchObject({
      code: 'bad_request',
      message: 'This invite has expired; ask for a new one',
    });
    await expect(h.call('organizations.acceptInvite', { token: 'inv_unknown' }, frank)).rejects.toMatchObject({
      code: 'not_found',
      message: 'Invite not found',
    });
    await expect(h.call('organizations.acceptInvite', { token: '' }, frank)).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await h.principal(frank, org.id).catch((error: { code: string }) => error.code)).toBe('not_found');
  });

  it('a new invite replaces the pending one for the same address', async () => {
    const gina = h.person('gina');
    const first = await invite({ email: gina.email });
    const second = await invite({ email: gina.email, roleKeys: ['read-only'] });
    await expect(h.call('organizations.acceptInvite', { token: first.token }, gina)).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.call('organizations.acceptInvite', { token: second.token }, gina)).resolves.toMatchObject({ roleKeys: ['read-only'] });
  });

  it('refuses inviting an existing member (409), unknown roles (400) and bad emails (400)', async () => {
    await expect(invite({ email: owner.email })).rejects.toMatchObject({ code: 'conflict' });
    await expect(invite({ email: 'x@example.test', roleKeys: ['member', 'ghost', 'phantom'] })).rejects.toMatchObject({
      code: 'validation_failed',
      message: 'Unknown roles: ghost, phantom',
    });
    await expect(invite({ email: 'not-an-email' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'email', code: 'invalid_format' })],
    });
  });

  it('needs members.manage, and nobody can invite with a role carrying permissions they do not hold', async () => {
    const member = h.person('plain-member');
    await h.call('organizations.acceptInvite', { token: (await invite({ email: member.email })).token }, member);
    await expect(invite({ email: 'y@example.test' }, member)).rejects.toMatchObject({
      code: 'forbidden',
      message: 'Missing permission members.manage',
    });

    const admin = h.person('invite-admin');
    await h.call('organizations.acceptInvite', { token: (await invite({ email: admin.email, roleKeys: ['admin'] })).token }, admin);
    await expect(invite({ email: 'z@example.test', roleKeys: ['owner'] }, admin)).rejects.toMatchObject({
      code: 'forbidden',
      message: 'You cannot invite with permissions you do not hold: organization.manage',
    });
    await expect(invite({ email: 'z@example.test', roleKeys: ['admin'] }, admin)).resolves.toBeDefined();
  });
});

describe('organizations.removeMember', () => {
  let h: AuthzHarness;
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.events.clear());

  async function orgWith(roles: Record<string, string[]>) {
    const owner = h.person('rm-owner');
    const org = await h.call<Org>('organizations.create', { name: `Remove ${Math.random()}` }, owner);
    const people: Record<string, ReturnType<AuthzHarness['person']>> = { owner };
    for (const [label, roleKeys] of Object.entries(roles)) {
      people[label] = h.person(label);
      const { token } = await h.call<{ token: string }>('organizations.invite', { email: people[label].email, roleKeys }, owner, org.id);
      await h.call('organizations.acceptInvite', { token }, people[label]);
    }
    h.events.clear();
    return { org, people };
  }

  it('removes a member with their grants; their next call is refused', async () => {
    const { org, people } = await orgWith({ bob: ['member'] });
    await expect(h.call('organizations.removeMember', { userId: people.bob.sub }, people.owner, org.id)).resolves.toEqual({
      userId: people.bob.sub,
      removed: true,
    });
    expect(h.events.published).toEqual([
      expect.objectContaining({
        type: 'organization.member-removed',
        payload: { organizationId: org.id, userId: people.bob.sub, removedBy: people.owner.sub },
      }),
    ]);
    await expect(h.call('organizations.get', {}, people.bob, org.id)).rejects.toMatchObject({ code: 'not_found' });
    expect(await h.sql('SELECT g.id FROM role_grants g JOIN roles r ON r.id = g.role_id WHERE r.organization_id = ?', [org.id])).toHaveLength(1);
  });

  it("revokes the removed member's API keys for that organization, so re-inviting them revives nothing", async () => {
    const { org, people } = await orgWith({ bob: ['member'] });
    const key = await h.call<{ id: string }>('apiKeys.create', { name: 'bob script', fullAccess: true }, people.bob, org.id);
    await h.call('organizations.removeMember', { userId: people.bob.sub }, people.owner, org.id);
    const [row] = await h.sql<{ revoked_at: string | null }>('SELECT revoked_at FROM api_keys WHERE id = ?', [key.id]);
    expect(row.revoked_at).not.toBeNull();
  });

  it('404 for a non-member, 403 without members.manage, 400 for bad input', async () => {
    const { org, people } = await orgWith({ bob: ['member'] });
    await expect(h.call('organizations.removeMember', { userId: 'nobody' }, people.owner, org.id)).rejects.toMatchObject({
      code: 'not_found',
      message: 'Member not found',
    });
    await expect(h.call('organizations.removeMember', { userId: people.owner.sub }, people.bob, org.id)).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(h.call('organizations.removeMember', { userId: '' }, people.owner, org.id)).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });

  it('the last owner cannot be removed, even by themselves; a second owner can leave', async () => {
    const { org, people } = await orgWith({ second: ['owner'] });
    await h.call('organizations.removeMember', { userId: people.second.sub }, people.second, org.id);
    await expect(h.call('organizations.removeMember', { userId: people.owner.sub }, people.owner, org.id)).rejects.toMatchObject({
      code: 'conflict',
      message: 'An organization must keep at least one owner who is an active person',
    });
  });

  it('only live human owners count: the last one cannot leave a service account or a locked-out person in charge', async () => {
    const { org, people } = await orgWith({ second: ['owner'], locked: ['owner'], gone: ['owner'] });
    const robot = newServiceAccountId();
    await h.sql("INSERT INTO users (id, email, kind, display_name) VALUES (?, ?, 'SERVICE', 'Robot')", [robot, serviceAccountEmail(robot)]);
    await h.sql('INSERT INTO memberships (id, organization_id, user_id) VALUES (gen_random_uuid(), ?, ?)', [org.id, robot]);
    await h.sql(
      `INSERT INTO role_grants (id, membership_id, role_id, granted_by)
       SELECT gen_random_uuid(), m.id, r.id, 'test' FROM memberships m JOIN roles r ON r.organization_id = m.organization_id
        WHERE m.organization_id = ? AND m.user_id = ? AND r.key = 'owner'`,
      [org.id, robot],
    );
    await h.sql('UPDATE users SET disabled_at = now() WHERE id = ?', [people.locked.sub]);
    await h.sql('UPDATE users SET deleted_at = now() WHERE id = ?', [people.gone.sub]);

    // Another live human owner is there: leaving is fine.
    await h.call('organizations.removeMember', { userId: people.second.sub }, people.second, org.id);
    const lastOwner = { code: 'conflict', message: 'An organization must keep at least one owner who is an active person' };
    await expect(h.call('organizations.removeMember', { userId: people.owner.sub }, people.owner, org.id)).rejects.toMatchObject(lastOwner);
    await expect(h.call('rbac.roles.revoke', { userId: people.owner.sub, roleKey: 'owner' }, people.owner, org.id)).rejects.toMatchObject(
      lastOwner,
    );
    // Those who do not count can lose the role or go.
    await expect(h.call('rbac.roles.revoke', { userId: people.locked.sub, roleKey: 'owner' }, people.owner, org.id)).resolves.toEqual({
      userId: people.locked.sub,
      roleKeys: [],
    });
    await expect(h.call('organizations.removeMember', { userId: people.gone.sub }, people.owner, org.id)).resolves.toMatchObject({ removed: true });
    await expect(h.call('organizations.removeMember', { userId: robot }, people.owner, org.id)).resolves.toMatchObject({ removed: true });
  });

  it('an admin cannot remove an owner', async () => {
    const { org, people } = await orgWith({ admin: ['admin'], second: ['owner'] });
    await expect(h.call('organizations.removeMember', { userId: people.second.sub }, people.admin, org.id)).rejects.toMatchObject({
      code: 'forbidden',
      message: 'You cannot remove a member holding permissions you do not hold: organization.manage',
    });
  });
});
