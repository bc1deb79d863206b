import { startTestApi, type TestApi } from './support/test-api';
import { createOrganizationWithKey, expectError, queryDatabase, type Member, type OrganizationWithKey } from './support/public-api-fixtures';
import { finishedRuns, startTestRunner, type TestRunner } from './support/automation-runs';

/**
 * Records are visible by role, not by permission: borrowing a principal that holds a record's
 * role (an automation's owner, a service account's key) or granting oneself that role must not
 * reveal the record to someone without it.
 */
describe('row-level access cannot be borrowed', () => {
  let api: TestApi;
  let runner: TestRunner;
  let org: OrganizationWithKey;
  let financeRoleId: string;
  let robotId: string;
  let restrictedId: string;
  let openId: string;
  const HIDDEN = 'payroll-7';

  beforeAll(async () => {
    api = await startTestApi({ FEATURE_FLAGS: 'public-api.service-accounts=true' });
    runner = await startTestRunner(api);
    org = await createOrganizationWithKey(api);
    financeRoleId = (await org.rpc<{ id: string }>('rbac.roles.create', { key: 'finance', name: 'Finance', permissions: ['records.read'] })).id;
    await org.rpc('rbac.roles.create', {
      key: 'builder',
      name: 'Builder',
      permissions: ['automations.manage', 'data-models.read', 'records.read', 'records.create', 'records.update'],
    });
    await org.rpc('rbac.roles.create', {
      key: 'role-admin',
      name: 'Role admin',
      permissions: ['rbac.manage', 'members.manage', 'records.read', 'data-models.read', 'api-keys.manage-service-accounts'],
    });
    await org.rpc('rbac.roles.create', { key: 'clerk', name: 'Clerk', permissions: ['data-models.read', 'records.read', 'records.update'] });
    restrictedId = (await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'Salaries', notes: HIDDEN } })).id;
    await org.rpc('records.setAccess', { id: restrictedId, roleIds: [financeRoleId] });
    openId = (await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'Inbox', notes: '' } })).id;
    // Owners may administer a role that grants row access: this robot holds finance.
    robotId = (await org.rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Finance robot', roleKeys: ['finance', 'clerk'] })).id;
  });
  afterAll(async () => {
    await runner.close();
    await api.close();
  });

  const call = (name: string, input: unknown, who: Member) => api.request(`/rpc/${name}`, { method: 'POST', json: input, token: who.session, organizationId: org.organizationId });
  const automationCount = async () => (await queryDatabase<{ n: number }>(api, 'SELECT count(*)::int AS n FROM automations')).at(0)?.n;

  describe('through an automation owned by a service account', () => {
    let builder: Member;
    beforeAll(async () => {
      builder = await org.addMember(['builder'], 'builder');
    });

    it('refuses to create the copying automation: 403 naming the role, and nothing is created', async () => {
      const before = await automationCount();
      const error = await expectError(
        await call(
          'automations.create',
          {
            name: 'Copy',
            ownerId: robotId,
            trigger: { type: 'http' },
            actions: [{ type: 'update-record', model: org.modelKey, recordId: openId, data: { notes: '{{input.leak}}' } }],
          },
          builder,
        ),
        403,
        'forbidden',
      );
      expect(error.message).toContain('finance');
      expect(await automationCount()).toBe(before);
    });

    it('gives the oracle one answer whatever the hidden value', async () => {
      const answers = [];
      for (const guess of [HIDDEN.slice(0, 3), 'zzz']) {
        const response = await call(
          'automations.create',
          {
            name: 'Oracle',
            ownerId: robotId,
            trigger: { type: 'http' },
            actions: [{ type: 'update-record', model: org.modelKey, filter: { field: 'notes', op: 'startsWith', value: guess }, data: { status: 'done' } }],
          },
          builder,
        );
        const body = (await response.json()) as { error: { code: string; message: string } };
        answers.push({ status: response.status, code: body.error.code, message: body.error.message });
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0].status).toBe(403);
    });

    it('refuses to hand over, change or run an automation once its owner holds a role the caller lacks', async () => {
      const own = (
        (await (
          await call('automations.create', { name: 'Mine', trigger: { type: 'http' }, actions: [{ type: 'create-record', model: org.modelKey, data: { title: 'x' } }] }, builder)
        ).json()) as { id: string }
      ).id;
      expect((await expectError(await call('automations.update', { id: own, ownerId: robotId }, builder), 403, 'forbidden')).message).toContain('finance');

      // An automation the owner made for the robot before it held finance.
      await org.rpc('rbac.roles.revoke', { userId: robotId, roleKey: 'finance' });
      const robots = (
        (await (
          await call(
            'automations.create',
            { name: 'Robot’s', ownerId: robotId, trigger: { type: 'http' }, actions: [{ type: 'update-record', model: org.modelKey, recordId: openId, data: { notes: 'x' } }] },
            builder,
          )
        ).json()) as { id: string }
      ).id;
      await org.rpc('rbac.roles.assign', { userId: robotId, roleKey: 'finance' });
      for (const [name, input] of [
        ['automations.run', { id: robots }],
        ['automations.rotateSecret', { id: robots }],
        ['automations.update', { id: robots, actions: [{ type: 'update-record', model: org.modelKey, recordId: openId, data: { notes: 'y' } }] }],
      ] as const) {
        expect((await expectError(await call(name, input, builder), 403, 'forbidden')).message).toContain('finance');
      }
      expect(await queryDatabase(api, 'SELECT id FROM automation_runs WHERE automation_id = $1', [robots])).toEqual([]);
    });

    it('still lets the organization owner act as a robot whose row-access roles she holds', async () => {
      await org.rpc('rbac.roles.assign', { userId: (await whoAmI(org.owner)).userId, roleKey: 'finance' });
      const copy = await org.rpc<{ id: string }>('automations.create', {
        name: 'Owner copy',
        ownerId: robotId,
        trigger: { type: 'http' },
        actions: [{ type: 'update-record', model: org.modelKey, recordId: restrictedId, data: { status: 'done' } }],
      });
      await org.rpc('automations.run', { id: copy.id });
      const [run] = await finishedRuns(api, copy.id, 1);
      expect(run.status).toBe('succeeded');
    });
  });

  describe('through role assignment', () => {
    it('refuses a role admin giving herself a role that grants row access; the record stays hidden', async () => {
      const roleAdmin = await org.addMember(['role-admin'], 'role-admin');
      await expectError(await call('records.get', { id: restrictedId }, roleAdmin), 404, 'not_found');
      const error = await expectError(await call('rbac.roles.assign', { userId: (await whoAmI(roleAdmin)).userId, roleKey: 'finance' }, roleAdmin), 403, 'forbidden');
      expect(error.message).toContain('finance');
      await expectError(await call('records.get', { id: restrictedId }, roleAdmin), 404, 'not_found');

      // Nor through an invite or a new service account carrying the role, nor a key of an account that holds it.
      expect((await expectError(await call('organizations.invite', { email: 'friend@example.test', roleKeys: ['finance'] }, roleAdmin), 403, 'forbidden')).message).toContain('finance');
      expect((await expectError(await call('serviceAccounts.create', { displayName: 'Mine', roleKeys: ['finance'] }, roleAdmin), 403, 'forbidden')).message).toContain('finance');
      for (const access of [{ fullAccess: true }, { fullAccess: false, permissions: ['records.read'] }]) {
        expect((await expectError(await call('serviceAccounts.keys.create', { serviceAccountId: robotId, name: 'k', ...access }, roleAdmin), 403, 'forbidden')).message).toContain('finance');
      }

      // Deleting the role would lift its records' restriction for every reader.
      expect((await expectError(await call('rbac.roles.delete', { key: 'finance' }, roleAdmin), 403, 'forbidden')).message).toContain('finance');
      await expectError(await call('records.get', { id: restrictedId }, roleAdmin), 404, 'not_found');

      // A role no record is restricted to is still hers to give.
      await org.rpc('rbac.roles.create', { key: 'reader', name: 'Reader', permissions: ['records.read'] });
      expect((await call('rbac.roles.assign', { userId: (await whoAmI(roleAdmin)).userId, roleKey: 'reader' }, roleAdmin)).status).toBe(200);

      // The owner may give it, visibly; then the record is hers to read.
      await org.rpc('rbac.roles.assign', { userId: (await whoAmI(roleAdmin)).userId, roleKey: 'finance' });
      expect((await call('records.get', { id: restrictedId }, roleAdmin)).status).toBe(200);
    });
  });

  async function whoAmI(who: Member): Promise<{ userId: string }> {
    const response = await call('me.identity', {}, who);
    return { userId: ((await response.json()) as { principal: { id: string } }).principal.id };
  }
});
