import { randomUUID } from 'node:crypto';
import { resolveSessionPrincipal, type SessionClaims } from '@mrp/authz';
import { invokeProcedure, loadConfig, type EventEnvelope } from '@mrp/platform';
import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { createRuntime, type Runtime } from './runtime';
import { createAutomationRunner } from './automation-runner-as-system';

/**
 * Runs waiting in the queue are executed several at a time, in one transaction (decision 163):
 * each still acts, fails and is announced on its own.
 */
describe('automation runs executed together', () => {
  let database: TestDatabase;
  let runtime: Runtime;
  let organizationId: string;
  const owner: SessionClaims = { sub: randomUUID(), email: `owner-${randomUUID().slice(0, 8)}@batches.test`, name: 'Owner' };

  async function call<T = Record<string, unknown>>(name: string, input: unknown, organization: string | null = organizationId): Promise<T> {
    const principal = await resolveSessionPrincipal(runtime.orm.em.fork(), owner, { organizationId: organization, platformAdminEmails: runtime.config.platformAdminEmails });
    return invokeProcedure<T>(runtime.procedures.require(name), input, { em: runtime.orm.em.fork(), principal, correlationId: 'batches-test' }, runtime.invocationDeps);
  }
  const sql = <T extends object>(query: string, params: unknown[] = []) => runtime.orm.em.fork().execute<T[]>(query, params);

  beforeAll(async () => {
    database = await createTestDatabase();
    runtime = await createRuntime(loadConfig({ NODE_ENV: 'test', ...database.env }), { name: 'batches-test', poolSize: 4 });
    organizationId = (await call<{ id: string }>('organizations.create', { name: 'Batches Co', slug: 'batches-co' }, null)).id;
    await call('dataModels.create', { key: 'orders', name: 'Orders' });
    await call('dataModels.fields.create', { model: 'orders', key: 'contact', name: 'Contact', type: 'TEXT' });
    await call('dataModels.create', { key: 'invoices', name: 'Invoices' });
    await call('dataModels.fields.create', { model: 'invoices', key: 'contact', name: 'Contact', type: 'EMAIL' });
    await call('automations.create', {
      name: 'Invoice each order',
      trigger: { type: 'event', eventType: 'data-models.orders.record-created' },
      actions: [{ type: 'create-record', model: 'invoices', data: { title: 'Invoice {{event.payload.record.title}}', contact: '{{event.payload.record.data.contact}}' } }],
      maxRunsPerMinute: 6000,
    });
  });
  afterAll(async () => {
    await runtime?.close();
    await database?.drop();
  });

  it('executes waiting runs of one organization in one transaction each batch, and a failing run leaves the others their work', async () => {
    const heard: EventEnvelope[] = [];
    const invoiceEvents: EventEnvelope[] = [];
    const unsubscribers = [
      runtime.bus.subscribe('automation.*', (event: EventEnvelope) => void heard.push(event)),
      runtime.bus.subscribe('data-models.invoices.record-created', (event: EventEnvelope) => void invoiceEvents.push(event)),
    ];
    try {
      // Twelve runs waiting; the contact of every fourth order is no email address, so its invoice is refused.
      const orders: Array<{ id: string; bad: boolean }> = [];
      for (let index = 0; index < 12; index++) {
        const bad = index % 4 === 1;
        const order = await call<{ id: string }>('records.create', { model: 'orders', data: { title: `Order ${index}`, contact: bad ? 'not an address' : `buyer${index}@example.com` } });
        orders.push({ id: order.id, bad });
      }
      const runner = createAutomationRunner(runtime, { concurrency: 2, batchSize: 5 });
      expect(await runner.drain(100)).toBe(12);

      const runs = await sql<{ id: string; status: string; error: string | null; order_id: string }>(
        `SELECT id, status, error, event->'payload'->>'recordId' AS order_id FROM automation_runs WHERE organization_id = ?`,
        [organizationId],
      );
      const runOf = new Map(runs.map((run) => [run.order_id, run]));
      for (const order of orders) {
        const run = runOf.get(order.id);
        expect(run?.status).toBe(order.bad ? 'failed' : 'succeeded');
        if (order.bad) expect(run?.error).toMatch(/^Action 1 \(create-record\) failed: /);
      }
      const invoices = await sql<{ title: string }>(
        `SELECT r.title FROM records r JOIN data_models m ON m.id = r.model_id WHERE m.organization_id = ? AND m.key = 'invoices' ORDER BY r.title`,
        [organizationId],
      );
      expect(invoices.map((invoice) => invoice.title)).toEqual(
        orders
          .map((order, index) => ({ ...order, title: `Invoice Order ${index}` }))
          .filter((order) => !order.bad)
          .map((order) => order.title)
          .sort(),
      );

      // One execution (its own correlation id) started several runs: 12 runs in batches of at most 5.
      const started = heard.filter((event) => event.type === 'automation.run-started');
      expect(started).toHaveLength(12);
      const perExecution = new Map<string, number>();
      for (const { correlationId } of started) {
        expect(correlationId).toEqual(expect.any(String));
        perExecution.set(String(correlationId), (perExecution.get(String(correlationId)) ?? 0) + 1);
      }
      expect([...perExecution.values()].sort()).toEqual([2, 5, 5]);

      // Each event names its own run as its cause, the invoices' too, though their runs shared a transaction.
      const runIdOfOrder = (orderId: string) => runOf.get(orderId)?.id;
      for (const event of started) {
        expect(event.causedBy?.automationRunId).toBe((event.payload as { runId: string }).runId);
      }
      for (const type of ['automation.run-succeeded', 'automation.run-failed']) {
        for (const event of heard.filter((candidate) => candidate.type === type)) {
          expect(event.causedBy?.automationRunId).toBe((event.payload as { runId: string }).runId);
        }
      }
      expect(invoiceEvents).toHaveLength(9);
      for (const event of invoiceEvents) {
        const title = (event.payload as { record: { title: string } }).record.title;
        const order = orders[Number(title.replace('Invoice Order ', ''))];
        expect(event.causedBy?.automationRunId).toBe(runIdOfOrder(order.id));
      }
    } finally {
      for (const unsubscribe of unsubscribers) unsubscribe();
    }
  });

  it('executes each run alone when an unexpected failure (a database error) ends the execution they shared, so only that run fails', async () => {
    const before = new Set((await sql<{ id: string }>('SELECT id FROM automation_runs WHERE organization_id = ?', [organizationId])).map((run) => run.id));
    // A database error that is no rule of ours, as a deadlock would be: the invoice of one order cannot be written.
    await sql(`CREATE FUNCTION fail_one_invoice() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN IF NEW.title = 'Invoice Doomed' THEN RAISE EXCEPTION 'disk on fire'; END IF; RETURN NEW; END $$`);
    await sql(`CREATE TRIGGER fail_one_invoice BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION fail_one_invoice()`);
    try {
      const titles = ['Fine A', 'Doomed', 'Fine B'];
      for (const title of titles) await call('records.create', { model: 'orders', data: { title, contact: 'buyer@example.com' } });
      const heard: EventEnvelope[] = [];
      const unsubscribe = runtime.bus.subscribe('automation.run-started', (event: EventEnvelope) => void heard.push(event));
      try {
        expect(await createAutomationRunner(runtime, { concurrency: 1, batchSize: 3 }).drain(100)).toBe(3);
      } finally {
        unsubscribe();
      }
      const runs = (await sql<{ id: string; status: string; error: string | null; title: string }>(
        `SELECT id, status, error, event->'payload'->'record'->>'title' AS title FROM automation_runs WHERE organization_id = ?`,
        [organizationId],
      )).filter((run) => !before.has(run.id));
      expect(new Map(runs.map((run) => [run.title, run.status]))).toEqual(new Map([['Fine A', 'succeeded'], ['Doomed', 'failed'], ['Fine B', 'succeeded']]));
      expect(runs.find((run) => run.title === 'Doomed')?.error).toBe('Action 1 (create-record) failed: The action failed unexpectedly');
      // The shared execution was rolled back (its events never published); each run then ran in an execution of its own.
      expect(new Set(heard.map((event) => event.correlationId)).size).toBe(3);
    } finally {
      await sql('DROP TRIGGER fail_one_invoice ON records');
      await sql('DROP FUNCTION fail_one_invoice()');
    }
  });

  it("reads the events' records together as the owner, and a record the owner may not read fails its run alone, saying why", async () => {
    const before = new Set((await sql<{ id: string }>('SELECT id FROM automation_runs WHERE organization_id = ?', [organizationId])).map((run) => run.id));
    const { id: hidden } = await call<{ id: string }>('rbac.roles.create', { key: 'vault', name: 'Vault', permissions: ['records.read'] });
    const orders: Array<{ id: string; restricted: boolean }> = [];
    for (let index = 0; index < 6; index++) {
      const order = await call<{ id: string }>('records.create', { model: 'orders', data: { title: `Guarded ${index}`, contact: `guarded${index}@example.com` } });
      const restricted = index === 3;
      // Only holders of a role the owner does not hold may read it.
      if (restricted) await call('records.setAccess', { id: order.id, roleIds: [hidden] });
      orders.push({ id: order.id, restricted });
    }
    expect(await createAutomationRunner(runtime, { concurrency: 1, batchSize: 6 }).drain(100)).toBe(6);
    const runs = (await sql<{ id: string; status: string; error: string | null; order_id: string }>(
      `SELECT id, status, error, event->'payload'->>'recordId' AS order_id FROM automation_runs WHERE organization_id = ?`,
      [organizationId],
    )).filter((run) => !before.has(run.id));
    expect(new Map(runs.map((run) => [run.order_id, run.status]))).toEqual(new Map(orders.map((order) => [order.id, order.restricted ? 'failed' : 'succeeded'])));
    expect(runs.find((run) => run.status === 'failed')?.error).toBe('The automation cannot run: its owner cannot read the record the event is about (Record not found)');
  });
});
