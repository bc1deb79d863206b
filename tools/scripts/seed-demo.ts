/**
 * Seeds a demo organization on first start: an owner (who is also the local platform admin), a
 * `contacts` Data Model with a few records, a `tasks` model shown as a board and a calendar, and a
 * full-access API key printed once.
 */
import { SignJWT } from 'jose';
import { resolveSessionPrincipal } from '@mrp/authz';
import { invokeProcedure, type PlatformConfig, type Principal } from '@mrp/platform';
import { createRuntime, type Runtime } from '@mrp/runtime';

const DEMO_USER = { sub: '018f0000-0000-7000-8000-00000000d3a0', email: 'admin@demo.example', name: 'Demo Admin' };
const DEMO_SLUG = 'demo';

async function call<T>(runtime: Runtime, principal: Principal, name: string, input: unknown): Promise<T> {
  return invokeProcedure<T>(
    runtime.procedures.require(name),
    input,
    { em: runtime.orm.em.fork(), principal, correlationId: 'seed-demo' },
    runtime.invocationDeps,
  );
}

async function sessionFor(runtime: Runtime, organizationId: string | null): Promise<Principal> {
  return resolveSessionPrincipal(runtime.orm.em.fork(), DEMO_USER, {
    organizationId,
    platformAdminEmails: runtime.config.platformAdminEmails,
  });
}

async function seedModel(runtime: Runtime, owner: Principal): Promise<void> {
  await call(runtime, owner, 'dataModels.create', { key: 'contacts', name: 'Contacts', description: 'People we work with' });
  const fields = [
    { key: 'email', name: 'Email', type: 'EMAIL' },
    { key: 'company', name: 'Company', type: 'TEXT' },
    {
      key: 'stage',
      name: 'Stage',
      type: 'SELECT',
      config: { options: [{ value: 'lead', label: 'Lead' }, { value: 'customer', label: 'Customer' }] },
    },
    { key: 'score', name: 'Score', type: 'NUMBER', config: { min: 0, max: 100, precision: 0 }, indexed: true },
  ];
  for (const field of fields) await call(runtime, owner, 'dataModels.fields.create', { model: 'contacts', ...field });
  const people = [
    { title: 'Ada Lovelace', email: 'ada@example.com', company: 'Analytical Engines', stage: 'customer', score: 92 },
    { title: 'Grace Hopper', email: 'grace@example.com', company: 'Navy', stage: 'customer', score: 88 },
    { title: 'Alan Turing', email: 'alan@example.com', company: 'Bletchley', stage: 'lead', score: 75 },
  ];
  for (const data of people) await call(runtime, owner, 'records.create', { model: 'contacts', data });
}

/** Tasks due over the coming days, on a board by status and a calendar by due date. */
async function seedTasks(runtime: Runtime, owner: Principal): Promise<void> {
  await call(runtime, owner, 'dataModels.create', { key: 'tasks', name: 'Tasks', description: 'Work to do, by status and due date' });
  const statuses = [
    { value: 'todo', label: 'To do' },
    { value: 'doing', label: 'Doing' },
    { value: 'done', label: 'Done' },
  ];
  await call(runtime, owner, 'dataModels.fields.create', { model: 'tasks', key: 'status', name: 'Status', type: 'SELECT', config: { options: statuses } });
  await call(runtime, owner, 'dataModels.fields.create', { model: 'tasks', key: 'due', name: 'Due', type: 'DATETIME', indexed: true });
  const inDays = (days: number, hour: number) => {
    const date = new Date();
    date.setUTCDate(date.getUTCDate() + days);
    date.setUTCHours(hour, 0, 0, 0);
    return date.toISOString();
  };
  const tasks = [
    { title: 'Call Ada about the renewal', status: 'todo', due: inDays(1, 9) },
    { title: 'Send the quarterly report', status: 'doing', due: inDays(2, 14) },
    { title: 'Plan the team offsite', status: 'todo', due: inDays(5, 10) },
    { title: 'Close the Navy deal', status: 'done', due: inDays(-2, 16) },
  ];
  for (const data of tasks) await call(runtime, owner, 'records.create', { model: 'tasks', data });
  await call(runtime, owner, 'kanban.boards.create', { name: 'Tasks', modelKey: 'tasks', fieldKey: 'status' });
  await call(runtime, owner, 'calendars.create', { name: 'Due dates', modelKey: 'tasks', startFieldKey: 'due' });
}

export async function seedDemo(config: PlatformConfig): Promise<void> {
  const runtime = await createRuntime(config, { name: 'seed', poolSize: 2 });
  try {
    const [existing] = await runtime.orm.em.fork().execute<Array<{ id: string }>>('SELECT id FROM organizations WHERE slug = ?', [DEMO_SLUG]);
    let organizationId = existing?.id;
    if (!organizationId) {
      const creator = await sessionFor(runtime, null);
      const organization = await call<{ id: string }>(runtime, creator, 'organizations.create', { name: 'Demo', slug: DEMO_SLUG });
      organizationId = organization.id;
      const owner = await sessionFor(runtime, organizationId);
      await seedModel(runtime, owner);
      await seedTasks(runtime, owner);
      const key = await call<{ token: string }>(runtime, owner, 'apiKeys.create', { name: 'Demo key', fullAccess: true });
      console.log(`\nDemo API key (shown once, keep it): ${key.token}`);
    } else {
      console.log('\nDemo organization exists; its API key was printed on first start (create more with apiKeys.create).');
    }
    if (config.authJwtSecret) {
      const session = await new SignJWT({ email: DEMO_USER.email, email_verified: true, name: DEMO_USER.name })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(DEMO_USER.sub)
        .setIssuedAt()
        .setExpirationTime('30d')
        .sign(new TextEncoder().encode(config.authJwtSecret));
      console.log(`Demo session token for /rpc (30 days): ${session}`);
    }
    console.log(`Demo organization id (X-Organization-Id): ${organizationId}\n`);
  } finally {
    await runtime.close();
  }
}
