import { Client } from 'pg';
import { systemPrincipal } from '@mrp/platform';
import { createWebhookTestBed, type WebhookTestBed } from '@mrp/events/testing';
import { WEBHOOK_DELIVERY_PERMISSION, createRecordAttemptsProcedure, type AttemptResult } from './record-attempts';

const ENDPOINTS = 200;
/** Attempts recorded in one call, across as many endpoints: each call locks many rows. */
const BATCH = 20;

describe('deleting endpoints while the worker records attempts to them', () => {
  let bed: WebhookTestBed;
  const worker = systemPrincipal('webhook-delivery', { permissions: [WEBHOOK_DELIVERY_PERMISSION] });

  beforeAll(async () => {
    bed = await createWebhookTestBed((jobs) => [
      createRecordAttemptsProcedure({ retryBaseSeconds: 30, notifyOperators: async () => undefined, jobs, jobExpirySeconds: 60 }),
    ]);
  });
  afterAll(() => bed.close());

  const succeeded = (deliveryId: string): AttemptResult => ({
    deliveryId,
    attempt: 1,
    startedAt: new Date().toISOString(),
    durationMs: 5,
    outcome: 'succeeded',
    statusCode: 204,
    error: null,
    responseHeaders: {},
    responseBody: '',
    retryAfterSeconds: null,
  });

  /**
   * As webhooks.endpoints.delete does: the endpoint locked, then deleted (its deliveries with it, by
   * trigger), with a round trip's pause between, as over a network.
   */
  const deleteEndpoint = (endpointId: string) =>
    bed.db.orm.em.fork().transactional(async (em) => {
      await em.execute('SELECT id FROM webhook_endpoints WHERE id = ? FOR UPDATE', [endpointId]);
      await em.execute('SELECT pg_sleep(0.05)');
      await em.execute('DELETE FROM webhook_endpoints WHERE id = ?', [endpointId]);
    });

  it('lets a recording wait behind a deletion under way, and the deletion finish: no deadlock', async () => {
    const organization = await bed.organization();
    const doomed = await bed.endpoint(organization);
    const other = await bed.endpoint(organization);
    const batch = [await bed.delivery({ endpointId: doomed }), await bed.delivery({ endpointId: other })];
    const deleting = new Client({ connectionString: bed.db.database.directUrl });
    await deleting.connect();
    try {
      await deleting.query('BEGIN');
      await deleting.query('SELECT id FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [doomed]);
      const recording = bed.call('webhooks.deliveries.recordAttempts', { attempts: batch.map(succeeded) }, worker);
      const outcome = recording.then(
        () => 'recorded',
        (error: unknown) => error,
      );
      // The recording now waits on a lock the deletion holds.
      for (let look = 0; ; look++) {
        const [{ waiting }] = await bed.sql<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if (waiting > 0) break;
        if (look > 200) throw new Error('the recording never waited on the deletion');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await deleting.query('DELETE FROM webhook_endpoints WHERE id = $1', [doomed]);
      await deleting.query('COMMIT');
      expect(await outcome).toBe('recorded');
    } finally {
      await deleting.end();
    }
    const left = await bed.sql<{ id: string; status: string }>('SELECT id, status FROM webhook_deliveries WHERE id = ANY(?::uuid[])', [`{${batch.join(',')}}`]);
    expect(left).toEqual([{ id: batch[1], status: 'succeeded' }]);
  });

  it('never deadlocks: each delivery ends recorded once or deleted with its endpoint, and every call succeeds', async () => {
    const organization = await bed.organization();
    const endpoints: string[] = [];
    const deliveries: string[] = [];
    for (let n = 0; n < ENDPOINTS; n++) {
      const endpointId = await bed.endpoint(organization);
      endpoints.push(endpointId);
      deliveries.push(await bed.delivery({ endpointId }), await bed.delivery({ endpointId }));
    }
    // The batches take deliveries of many endpoints, in another order than the deletions go.
    const shuffled = [...deliveries].sort(() => Math.random() - 0.5);
    const batches = Array.from({ length: Math.ceil(shuffled.length / BATCH) }, (_batch, index) => shuffled.slice(index * BATCH, (index + 1) * BATCH));
    const failures: unknown[] = [];
    const settle = (work: Promise<unknown>) => work.catch((error: unknown) => failures.push(error));
    // Interleaved, so deletions and recordings hold the pool's connections side by side.
    const deletions = endpoints.filter((_endpoint, index) => index % 2 === 0);
    const work: Array<() => Promise<unknown>> = [];
    for (let n = 0; n < Math.max(batches.length, deletions.length); n++) {
      const batch = batches[n];
      if (batch) work.push(() => bed.call('webhooks.deliveries.recordAttempts', { attempts: batch.map(succeeded) }, worker));
      for (const endpointId of deletions.slice(n * 5, n * 5 + 5)) work.push(() => deleteEndpoint(endpointId));
    }
    await Promise.all(work.map((run) => settle(run())));
    expect(failures).toEqual([]);

    const left = await bed.sql<{ id: string; status: string; attempts: number }>(
      `SELECT d.id, d.status, (SELECT count(*)::int FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
         FROM webhook_deliveries d WHERE d.id = ANY(?::uuid[])`,
      [`{${deliveries.join(',')}}`],
    );
    const deleted = new Set(endpoints.filter((_endpoint, index) => index % 2 === 0));
    const kept = deliveries.filter((_delivery, index) => !deleted.has(endpoints[Math.floor(index / 2)]));
    // The kept endpoints' deliveries: every attempt recorded, once.
    expect(left.map((row) => row.id).sort()).toEqual([...kept].sort());
    expect(left.filter((row) => row.status !== 'succeeded' || row.attempts !== 1)).toEqual([]);
  }, 120_000);
});
