import { randomBytes } from 'node:crypto';
import type { DeliveryWorker } from '@mrp/events';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, queryDatabase, sleep, type OrganizationWithKey } from '../support/public-api-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/** A short lease, so the test sees several heartbeats within one send. */
const LEASE_SECONDS = 1.5;

describe('a delivery a worker is sending', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let receiver: WebhookReceiver;
  const workers: DeliveryWorker[] = [];
  beforeAll(async () => {
    api = await startTestApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_TIMEOUT_SECONDS: '10' });
    org = await createOrganizationWithKey(api);
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await receiver.close();
    await api.close();
  });

  it('is sent by no other worker, however long past its lease and through a second job for it: the heartbeat renews its claim', async () => {
    await org.rpc('webhooks.endpoints.create', { url: receiver.url, subscriptions: ['*'] });
    receiver.replyWith(['hang'], { status: 204 });
    const sending = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { leaseSeconds: LEASE_SECONDS });
    const other = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { leaseSeconds: LEASE_SECONDS });
    workers.push(sending, other);
    await org.rpc('records.create', { model: org.modelKey, data: { title: 'Slow to answer' } });
    sending.wake();
    await receiver.waitFor(1);
    const [{ id }] = await queryDatabase<{ id: string }>(api, 'SELECT id FROM webhook_deliveries');
    // A second job for the same delivery (as an expired job's retry makes): its claim finds the delivery held.
    await api.runtime.orm.em.fork().transactional(async (em) => {
      const [row] = await em.execute<Array<{ organization_id: string; delivery_queue: number; next_attempt_at: Date }>>(
        'SELECT d.organization_id, e.delivery_queue, d.next_attempt_at FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = ?',
        [id],
      );
      await api.runtime.jobs.enqueueAtCommit(em, [{ queue: `webhook.deliver.${row.delivery_queue}`, data: { deliveryId: id, organizationId: row.organization_id } }]);
    });
    // The receiver holds the request for the whole 10 s timeout; the other worker looks for over two leases.
    for (let look = 0; look < 16; look++) {
      await other.drain();
      await sleep(200);
    }
    expect(receiver.received).toHaveLength(1);
    const [delivery] = await queryDatabase<{ locked_until_in: number }>(
      api,
      'SELECT extract(epoch FROM locked_until - now())::float8 AS locked_until_in FROM webhook_deliveries',
    );
    // Held for at most one lease ahead: were the worker gone, the claim would be free within it.
    expect(delivery.locked_until_in).toBeLessThanOrEqual(LEASE_SECONDS);
    // And the second job waits for that moment, queued again by each look that found the delivery held.
    const [{ waiting }] = await queryDatabase<{ waiting: number }>(
      api,
      `SELECT count(*)::int AS waiting FROM pgboss.job WHERE data->>'deliveryId' = $1 AND state = 'created' AND start_after > now() - interval '1 second'`,
      [id],
    );
    expect(waiting).toBe(1);
  }, 30_000);
});
