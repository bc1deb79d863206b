import { resolveSessionPrincipal } from '@mrp/authz';
import { invokeProcedure, loadConfig, type Principal } from '@mrp/platform';
import { createRuntime, type Runtime } from '@mrp/runtime';
import { apiEnvironment, BENCH_ADMIN } from './server-process';

export const MODEL_KEY = 'orders';

/** A record body of the benchmark model: every field filled, as an integration would send it. */
export function sampleData(title: string): Record<string, unknown> {
  return { title, status: 'open', amount: 129.5, customer: 'ada@example.com', notes: 'Deliver before noon' };
}

export interface Seeded {
  organizationId: string;
  /** Full-access keys of the organization's owner, one per benchmark connection. */
  tokens: string[];
  recordId: string;
  /** Records the PATCH scenarios write in turn. */
  patchRecordIds: string[];
}

/** Enough records that 16 connections writing them in turn never meet on one. */
const PATCH_RECORDS = 256;

/** Seeds with a runtime of its own, closed afterwards: the servers under test start on a seeded database. */
export async function seedDatabase(databaseUrl: string, keyCount: number): Promise<Seeded> {
  // The endpoint below is an address of this machine, which production settings refuse unless allowed.
  const config = loadConfig({ ...apiEnvironment(databaseUrl), LOG_LEVEL: 'silent', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' }, { requireSessionAuth: true });
  const runtime = await createRuntime(config, { name: 'bench-seed', poolSize: 2 });
  try {
    return await seed(runtime, keyCount);
  } finally {
    await runtime.close();
  }
}

/**
 * Seeds through the procedures, as the web application would: a platform admin switches the
 * public API on, creates an organization, a model with fields, one record and full-access keys.
 */
async function seed(runtime: Runtime, keyCount: number): Promise<Seeded> {
  const principal = (organizationId: string | null): Promise<Principal> =>
    resolveSessionPrincipal(runtime.orm.em.fork(), BENCH_ADMIN, { organizationId, platformAdminEmails: runtime.config.platformAdminEmails });
  const call = <T>(as: Principal, name: string, input: unknown) =>
    invokeProcedure<T>(runtime.procedures.require(name), input, { em: runtime.orm.em.fork(), principal: as, correlationId: 'bench-seed' }, runtime.invocationDeps);

  const admin = await principal(null);
  await call(admin, 'featureFlags.set', { key: 'public-api.enabled', enabled: true });
  const organization = await call<{ id: string }>(admin, 'organizations.create', { name: 'Bench', slug: 'bench' });
  const owner = await principal(organization.id);
  await call(owner, 'dataModels.create', { key: MODEL_KEY, name: 'Orders' });
  const fields = [
    { key: 'status', name: 'Status', type: 'SELECT', config: { options: [{ value: 'open', label: 'Open' }, { value: 'shipped', label: 'Shipped' }] } },
    { key: 'amount', name: 'Amount', type: 'NUMBER', config: { precision: 2 } },
    { key: 'customer', name: 'Customer', type: 'EMAIL' },
    { key: 'notes', name: 'Notes', type: 'TEXT' },
  ];
  for (const field of fields) await call(owner, 'dataModels.fields.create', { model: MODEL_KEY, ...field });
  // Every record change queues a delivery in its transaction (nothing delivers them during the benchmark).
  await call(owner, 'webhooks.endpoints.create', { url: 'https://127.0.0.1:9/bench-hook', subscriptions: ['data-models.*'] });
  const record = await call<{ id: string }>(owner, 'records.create', { model: MODEL_KEY, data: sampleData('Order 1') });
  const tokens: string[] = [];
  for (let index = 0; index < keyCount; index++) {
    tokens.push((await call<{ token: string }>(owner, 'apiKeys.create', { name: `bench ${index + 1}`, fullAccess: true })).token);
  }
  const patchRecordIds: string[] = [];
  for (let index = 0; index < PATCH_RECORDS; index++) {
    patchRecordIds.push((await call<{ id: string }>(owner, 'records.create', { model: MODEL_KEY, data: sampleData(`Patched ${index + 1}`) })).id);
  }
  return { organizationId: organization.id, tokens, recordId: record.id, patchRecordIds };
}
