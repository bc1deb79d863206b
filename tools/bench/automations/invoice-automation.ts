import { resolveSessionPrincipal } from '@mrp/authz';
import { invokeProcedure, loadConfig, type Principal } from '@mrp/platform';
import { createRuntime, type Runtime } from '@mrp/runtime';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../shared/throwaway-database';

const ADMIN = { sub: '0190cccc-0000-7000-8000-00000000be03', email: 'bench-admin@bench.example', name: 'Bench Admin' };

export interface InvoiceAutomation {
  database: ThrowawayDatabase;
  runtime: Runtime;
  owner: Principal;
  call<T>(as: Principal, name: string, input: unknown): Promise<T>;
  close(): Promise<void>;
}

/**
 * What the automation benchmarks measure on: a throwaway database, one organization, and an event
 * automation on `data-models.orders.record-created` whose one action creates an invoice (through
 * `records.create`, as the owner).
 */
export async function setUpInvoiceAutomation(name: string): Promise<InvoiceAutomation> {
  const database = await createThrowawayDatabase();
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: database.url, PLATFORM_ADMIN_EMAILS: ADMIN.email, LOG_LEVEL: 'silent' });
  const runtime: Runtime = await createRuntime(config, { name, poolSize: 12 });
  const close = async () => {
    await runtime.close();
    await database.drop();
  };
  try {
    const principal = (organizationId: string | null): Promise<Principal> =>
      resolveSessionPrincipal(runtime.orm.em.fork(), ADMIN, { organizationId, platformAdminEmails: config.platformAdminEmails });
    const call = <T>(as: Principal, procedure: string, input: unknown) =>
      invokeProcedure<T>(runtime.procedures.require(procedure), input, { em: runtime.orm.em.fork(), principal: as, correlationId: 'bench' }, runtime.invocationDeps);
    const organization = await call<{ id: string }>(await principal(null), 'organizations.create', { name: 'Bench', slug: 'bench' });
    const owner = await principal(organization.id);
    await call(owner, 'dataModels.create', { key: 'orders', name: 'Orders' });
    await call(owner, 'dataModels.create', { key: 'invoices', name: 'Invoices' });
    await call(owner, 'dataModels.fields.create', { model: 'invoices', key: 'order', name: 'Order', type: 'TEXT' });
    await call(owner, 'automations.create', {
      name: 'Invoice each order',
      trigger: { type: 'event', eventType: 'data-models.orders.record-created' },
      actions: [{ type: 'create-record', model: 'invoices', data: { title: 'Invoice {{event.payload.record.title}}', order: '{{event.payload.recordId}}' } }],
      maxRunsPerMinute: 6000,
    });
    return { database, runtime, owner, call, close };
  } catch (error) {
    await close();
    throw error;
  }
}
