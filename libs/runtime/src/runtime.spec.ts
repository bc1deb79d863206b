import { loadConfig } from '@mrp/platform';
import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { ALL_PERMISSIONS } from '@mrp/authz';
import { invokeAsSystem } from './invoke-as-system';
import { createRuntime, type Runtime } from './runtime';

/** Every procedure name DESIGN 3 lists (the web front end and the tests rely on them). */
const DESIGN_PROCEDURES = [
  'me.get',
  ...['create', 'get', 'update', 'invite', 'acceptInvite', 'removeMember'].map((name) => `organizations.${name}`),
  'rbac.permissions.list',
  ...['list', 'create', 'update', 'delete', 'assign', 'revoke'].map((name) => `rbac.roles.${name}`),
  ...['updateProfile', 'disable', 'enable', 'requestDeletion', 'cancelDeletion'].map((name) => `users.${name}`),
  ...['list', 'create', 'revoke'].map((name) => `apiKeys.${name}`),
  ...['list', 'create', 'update', 'disable', 'enable', 'delete'].map((name) => `serviceAccounts.${name}`),
  ...['list', 'create', 'revoke'].map((name) => `serviceAccounts.keys.${name}`),
  ...['list', 'get', 'create', 'update', 'archive'].map((name) => `dataModels.${name}`),
  ...['list', 'create', 'update', 'archive'].map((name) => `dataModels.fields.${name}`),
  ...['list', 'get', 'create', 'update', 'delete', 'restore', 'setAccess'].map((name) => `records.${name}`),
  ...['list', 'create', 'update', 'delete', 'rotateSecret', 'enable'].map((name) => `webhooks.endpoints.${name}`),
  ...['list', 'redeliver'].map((name) => `webhooks.deliveries.${name}`),
  'featureFlags.list',
  'featureFlags.set',
  ...['list', 'get', 'create', 'update', 'delete', 'run', 'rotateSecret', 'runs.list', 'runs.get'].map((name) => `automations.${name}`),
  'notifications.list',
  'notifications.markRead',
];


describe('createRuntime', () => {
  let database: TestDatabase;
  let runtime: Runtime;
  beforeAll(async () => {
    database = await createTestDatabase();
    runtime = await createRuntime(loadConfig({ NODE_ENV: 'test', ...database.env }), { name: 'runtime-test', poolSize: 2 });
  });
  afterAll(async () => {
    await runtime.close();
    await database.drop();
  });

  it('registers every procedure the design names, except those of capabilities not built yet', () => {
    const registered = new Set(runtime.procedures.all().map((procedure) => procedure.name));
    expect(DESIGN_PROCEDURES.filter((name) => !registered.has(name))).toEqual([]);
  });

  it('has a permission or an explicit null on every procedure, and organization scope for record access', () => {
    for (const procedure of runtime.procedures.all()) {
      expect(procedure.permission === null || /^[a-z-]+\.[a-z-]+$/.test(procedure.permission)).toBe(true);
      if (procedure.name.startsWith('records.')) expect(procedure.scope).toBe('organization');
    }
  });

  it('names the scheduled tasks the cron routes and the cron runner share, and runs each', async () => {
    expect(runtime.tasks.map((task) => task.name)).toEqual([
      'process-account-deletions',
      'prune-rate-limit-buckets',
      'prune-idempotent-requests',
      'sweep-webhook-deliveries',
      'prune-webhook-deliveries',
      'run-automation-schedules',
      'send-calendar-reminders',
      'retry-field-indexes',
    ]);
    for (const task of runtime.tasks) await expect(task.run(runtime)).resolves.toBe(0);
  });

  it("serves the tasks' system procedures through no door, and holds no person able to call them", () => {
    const system = runtime.procedures.all().filter((procedure) => procedure.scope === 'system');
    expect(system.map((procedure) => procedure.name)).toEqual(
      expect.arrayContaining(['accounts.processDueDeletions', 'apiKeys.pruneRateLimitBuckets', 'idempotency.pruneExpired', 'dataModels.fields.retryIndexes', 'dataModels.reminders.sendDue', 'notifications.emails.send']),
    );
    for (const procedure of system) expect(runtime.procedures.served(procedure.name)).toBeUndefined();
    // Their permissions are no role's: the permission catalog cannot grant them.
    expect(system.map((procedure) => procedure.permission).filter((permission) => permission && (ALL_PERMISSIONS as readonly string[]).includes(permission))).toEqual([]);
  });

  it('runs a task as its own system principal: a task holding another permission is refused', async () => {
    await expect(
      invokeAsSystem(runtime, { task: 'prune-rate-limit-buckets', procedure: 'accounts.processDueDeletions', permissions: ['system.prune-rate-limit-buckets'] }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      invokeAsSystem(runtime, { task: 'process-account-deletions', procedure: 'accounts.processDueDeletions', permissions: ['system.process-account-deletions'] }),
    ).resolves.toEqual({ processed: 0 });
  });

  it('refuses to start without DATABASE_URL, in one clear line', async () => {
    await expect(createRuntime(loadConfig({ NODE_ENV: 'test' }), { name: 'x' })).rejects.toThrow(
      'DATABASE_URL is not set (npm start provides an embedded PostgreSQL)',
    );
  });
});
