import type { NotificationMessage, NotificationScope, UserNotifier } from '../notifier/user-notifier';
import { createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';
import { ALL_PERMISSIONS } from './permission-catalog';
import type { RoleView } from './role-view';

type Person = ReturnType<AuthzHarness['person']>;

class RecordingNotifier implements UserNotifier {
  sent: Array<{ userIds: readonly string[]; message: NotificationMessage }> = [];
  async notify(_scope: NotificationScope, userIds: readonly string[], message: NotificationMessage) {
    this.sent.push({ userIds, message });
  }
}

describe('rbac procedures', () => {
  let h: AuthzHarness;
  const notifier = new RecordingNotifier();
  let owner: Person;
  let admin: Person;
  let member: Person;
  let orgId: string;

  beforeAll(async () => {
    h = await createAuthzHarness({ notifier });
    owner = h.person('owner');
    admin = h.person('admin');
    member = h.person('member');
    orgId = (await h.call<{ id: string }>('organizations.create', { name: 'Roles Inc' }, owner)).id;
    for (const [who, roleKeys] of [
      [admin, ['admin']],
      [member, ['member']],
    ] as const) {
      const { token } = await h.call<{ token: string }>('organizations.invite', { email: who.email, roleKeys }, owner, orgId);
      await h.call('organizations.acceptInvite', { token }, who);
    }
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.events.clear();
    notifier.sent = [];
  });

  const call = <T = Record<string, unknown>>(name: string, input: unknown, who: Person) => h.call<T>(name, input, who, orgId);

  describe('rbac.permissions.list', () => {
    it('lists the whole catalog with descriptions, with or without an organization', async () => {
      const { items } = await h.call<{ items: Array<{ key: string; description: string }> }>('rbac.permissions.list', {}, member);
      expect(items.map((item) => item.key)).toEqual(ALL_PERMISSIONS);
      expect(items.find((item) => item.key === 'rbac.manage')?.description).toBe('Create, change and assign roles');
      await expect(call('rbac.permissions.list', { extra: 1 }, member)).rejects.toMatchObject({ code: 'validation_failed' });
    });
  });

  describe('rbac.roles.list', () => {
    it('lists built-in roles first to any member, with member counts', async () => {
      const { items } = await call<{ items: RoleView[] }>('rbac.roles.list', {}, member);
      expect(items.map((role) => [role.key, role.builtIn, role.memberCount])).toEqual([
        ['owner', true, 1],
        ['admin', true, 1],
        ['member', true, 1],
        ['read-only', true, 0],
      ]);
      expect(items[2].permissions).toEqual([...items[2].permissions].sort());
      await expect(h.call('rbac.roles.list', {}, h.person('outsider'), orgId)).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('rbac.roles.create / update / delete', () => {
    it('creates a custom role and emits rbac.role-created', async () => {
      const role = await call<RoleView>(
        'rbac.roles.create',
        { key: 'editor', name: 'Editor', description: 'Edits records', permissions: ['records.update', 'records.read'] },
        admin,
      );
      expect(role).toMatchObject({
        key: 'editor',
        name: 'Editor',
        description: 'Edits records',
        permissions: ['records.read', 'records.update'],
        builtIn: false,
        memberCount: 0,
      });
      expect(h.events.published).toEqual([
        expect.objectContaining({
          type: 'rbac.role-created',
          organizationId: orgId,
          payload: { organizationId: orgId, roleId: role.id, roleKey: 'editor', permissions: ['records.read', 'records.update'] },
        }),
      ]);
    });

    it('refuses a duplicate key (409), a bad key (400) and unknown permissions (400, named)', async () => {
      await expect(call('rbac.roles.create', { key: 'owner', name: 'Owner 2', permissions: [] }, owner)).rejects.toMatchObject({
        code: 'conflict',
        message: 'A role with key "owner" already exists',
      });
      await expect(call('rbac.roles.create', { key: 'Bad Key', name: 'x', permissions: [] }, owner)).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'key', code: 'invalid_format' })],
      });
      await expect(
        call('rbac.roles.create', { key: 'weird', name: 'Weird', permissions: ['records.read', 'records.fly', 'time.travel'] }, owner),
      ).rejects.toMatchObject({
        code: 'validation_failed',
        message: 'Unknown permissions: records.fly, time.travel',
        details: [
          { field: 'permissions', code: 'invalid_option', message: 'unknown permission "records.fly"' },
          { field: 'permissions', code: 'invalid_option', message: 'unknown permission "time.travel"' },
        ],
      });
    });

    it('needs rbac.manage', async () => {
      await expect(call('rbac.roles.create', { key: 'sneaky', name: 'Sneaky', permissions: [] }, member)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Missing permission rbac.manage',
      });
    });

    it('nobody can create or widen a role beyond their own permissions: an admin cannot use organization.manage', async () => {
      await expect(
        call('rbac.roles.create', { key: 'almost-owner', name: 'Almost', permissions: ['organization.manage', 'records.read'] }, admin),
      ).rejects.toMatchObject({ code: 'forbidden', message: 'You cannot grant permissions you do not hold: organization.manage' });
      await expect(call('rbac.roles.update', { key: 'editor', permissions: ['organization.manage'] }, admin)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'You cannot grant permissions you do not hold: organization.manage',
      });
      await call('rbac.roles.create', { key: 'settings', name: 'Settings', permissions: ['organization.manage'] }, owner);
      await expect(call('rbac.roles.update', { key: 'settings', name: 'Renamed' }, admin)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'You cannot change a role carrying permissions you do not hold: organization.manage',
      });
      await expect(call('rbac.roles.delete', { key: 'settings' }, admin)).rejects.toMatchObject({ code: 'forbidden' });
      expect(await h.sql("SELECT id FROM roles WHERE key = 'almost-owner'")).toHaveLength(0);
    });

    it('updates name, description and permissions, emitting the changed keys', async () => {
      await call('rbac.roles.create', { key: 'reviewer', name: 'Reviewer', permissions: ['records.read'] }, owner);
      h.events.clear();
      const updated = await call<RoleView>(
        'rbac.roles.update',
        { key: 'reviewer', name: 'Senior reviewer', permissions: ['records.read', 'data-models.read'] },
        owner,
      );
      expect(updated).toMatchObject({ key: 'reviewer', name: 'Senior reviewer', permissions: ['data-models.read', 'records.read'] });
      expect(h.events.published).toEqual([
        expect.objectContaining({ type: 'rbac.role-updated', payload: expect.objectContaining({ roleKey: 'reviewer', changes: ['name', 'permissions'] }) }),
      ]);
      h.events.clear();
      await call('rbac.roles.update', { key: 'reviewer', permissions: ['data-models.read', 'records.read'] }, owner);
      expect(h.events.published).toEqual([]);
    });

    it('built-in roles cannot be changed or deleted; unknown roles are 404', async () => {
      await expect(call('rbac.roles.update', { key: 'member', name: 'Members' }, owner)).rejects.toMatchObject({
        code: 'bad_request',
        message: 'Built-in roles cannot be changed',
      });
      await expect(call('rbac.roles.delete', { key: 'read-only' }, owner)).rejects.toMatchObject({
        code: 'bad_request',
        message: 'Built-in roles cannot be deleted',
      });
      await expect(call('rbac.roles.update', { key: 'ghost', name: 'Ghost' }, owner)).rejects.toMatchObject({
        code: 'not_found',
        message: 'Role not found',
      });
      await expect(call('rbac.roles.delete', { key: 'ghost' }, owner)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('deleting a role takes it from its members on their next call', async () => {
      const temp = h.person('temp');
      const { token } = await h.call<{ token: string }>('organizations.invite', { email: temp.email, roleKeys: ['read-only'] }, owner, orgId);
      await h.call('organizations.acceptInvite', { token }, temp);
      await call('rbac.roles.create', { key: 'hooks', name: 'Hooks', permissions: ['webhooks.manage'] }, owner);
      await call('rbac.roles.assign', { userId: temp.sub, roleKey: 'hooks' }, owner);
      expect((await h.principal(temp, orgId)).permissions.has('webhooks.manage')).toBe(true);
      h.events.clear();
      await expect(call('rbac.roles.delete', { key: 'hooks' }, owner)).resolves.toEqual({ key: 'hooks', deleted: true });
      expect(h.events.published).toEqual([expect.objectContaining({ type: 'rbac.role-deleted', payload: expect.objectContaining({ roleKey: 'hooks' }) })]);
      expect((await h.principal(temp, orgId)).permissions.has('webhooks.manage')).toBe(false);
    });
  });

  describe('rbac.roles.assign / revoke', () => {
    it('assigns a role (idempotently), emits rbac.role-assigned once and notifies the member', async () => {
      const result = await call('rbac.roles.assign', { userId: member.sub, roleKey: 'read-only' }, admin);
      expect(result).toEqual({ userId: member.sub, roleKeys: ['member', 'read-only'] });
      await call('rbac.roles.assign', { userId: member.sub, roleKey: 'read-only' }, admin);
      expect(h.events.published).toEqual([
        expect.objectContaining({
          type: 'rbac.role-assigned',
          payload: expect.objectContaining({ organizationId: orgId, roleKey: 'read-only', userId: member.sub, assignedBy: admin.sub }),
        }),
      ]);
      expect(notifier.sent).toEqual([
        { userIds: [member.sub], message: expect.objectContaining({ kind: 'rbac.role-assigned', title: 'You now have the role Read-only in Roles Inc' }) },
      ]);
      await call('rbac.roles.revoke', { userId: member.sub, roleKey: 'read-only' }, admin);
    });

    it('a member without rbac.manage cannot grant roles', async () => {
      await expect(call('rbac.roles.assign', { userId: member.sub, roleKey: 'admin' }, member)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Missing permission rbac.manage',
      });
      expect((await h.principal(member, orgId)).permissions.has('rbac.manage')).toBe(false);
    });

    it('nobody can assign a role carrying a permission they do not hold', async () => {
      await expect(call('rbac.roles.assign', { userId: member.sub, roleKey: 'owner' }, admin)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'You cannot grant permissions you do not hold: organization.manage',
      });
      await expect(call('rbac.roles.assign', { userId: admin.sub, roleKey: 'owner' }, admin)).rejects.toMatchObject({ code: 'forbidden' });
    });

    it('the target must be a member; the role must exist; input is validated', async () => {
      const stranger = h.person('stranger');
      await h.principal(stranger);
      await expect(call('rbac.roles.assign', { userId: stranger.sub, roleKey: 'member' }, owner)).rejects.toMatchObject({
        code: 'not_found',
        message: 'Member not found',
      });
      await expect(call('rbac.roles.assign', { userId: member.sub, roleKey: 'ghost' }, owner)).rejects.toMatchObject({
        code: 'not_found',
        message: 'Role not found',
      });
      await expect(call('rbac.roles.assign', { userId: member.sub }, owner)).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'roleKey', code: 'required' })],
      });
    });

    it('assigns to a service-account member like to a human', async () => {
      const serviceId = 'svc_rbac_test';
      await h.sql("INSERT INTO users (id, email, kind, display_name) VALUES (?, 'bot@svc.invalid', 'SERVICE', 'Bot')", [serviceId]);
      await h.sql('INSERT INTO memberships (id, organization_id, user_id) VALUES (gen_random_uuid(), ?, ?)', [orgId, serviceId]);
      await expect(call('rbac.roles.assign', { userId: serviceId, roleKey: 'read-only' }, owner)).resolves.toEqual({
        userId: serviceId,
        roleKeys: ['read-only'],
      });
      await expect(call('rbac.roles.revoke', { userId: serviceId, roleKey: 'read-only' }, owner)).resolves.toEqual({
        userId: serviceId,
        roleKeys: [],
      });
    });

    it('losing a role takes effect on the very next call', async () => {
      const worker = h.person('worker');
      const { token } = await h.call<{ token: string }>('organizations.invite', { email: worker.email, roleKeys: ['admin'] }, owner, orgId);
      await h.call('organizations.acceptInvite', { token }, worker);
      await expect(call('rbac.roles.create', { key: 'worker-made', name: 'Made', permissions: [] }, worker)).resolves.toBeDefined();

      h.events.clear();
      await expect(call('rbac.roles.revoke', { userId: worker.sub, roleKey: 'admin' }, owner)).resolves.toEqual({
        userId: worker.sub,
        roleKeys: [],
      });
      expect(h.events.published).toEqual([
        expect.objectContaining({
          type: 'rbac.role-revoked',
          payload: expect.objectContaining({ roleKey: 'admin', userId: worker.sub, revokedBy: owner.sub }),
        }),
      ]);
      await expect(call('rbac.roles.create', { key: 'worker-made-2', name: 'Made 2', permissions: [] }, worker)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Missing permission rbac.manage',
      });
      // Revoking what is not held changes nothing and emits nothing.
      h.events.clear();
      await call('rbac.roles.revoke', { userId: worker.sub, roleKey: 'admin' }, owner);
      expect(h.events.published).toEqual([]);
    });

    it("the last owner grant cannot be revoked, and an admin cannot demote an owner", async () => {
      await expect(call('rbac.roles.revoke', { userId: owner.sub, roleKey: 'owner' }, owner)).rejects.toMatchObject({
        code: 'conflict',
        message: 'An organization must keep at least one owner who is an active person',
      });
      await expect(call('rbac.roles.revoke', { userId: owner.sub, roleKey: 'owner' }, admin)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'You cannot revoke permissions you do not hold: organization.manage',
      });
      await call('rbac.roles.assign', { userId: admin.sub, roleKey: 'owner' }, owner);
      await expect(call('rbac.roles.revoke', { userId: owner.sub, roleKey: 'owner' }, owner)).resolves.toEqual({
        userId: owner.sub,
        roleKeys: [],
      });
      // Roles are restored for the rest of the suite by the new owner.
      await call('rbac.roles.assign', { userId: owner.sub, roleKey: 'owner' }, admin);
      await call('rbac.roles.revoke', { userId: admin.sub, roleKey: 'owner' }, owner);
      expect((await h.principal(admin, orgId)).permissions.has('organization.manage')).toBe(false);
    });
  });
});
