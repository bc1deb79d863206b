import { randomBytes } from 'node:crypto';
import type { DeliveryWorker } from '@mrp/events';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, queryDatabase, sleep, type OrganizationWithKey } from '../support/public-api-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/** A short lease, so the test sees several heartbeats within one send. */
const LEASE_SECONDS = 1.5;

describe("a live worker's claims (the heartbeat)", () => {
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

  it('are renewed while it sends, so no other worker sends the same delivery again, however long past the lease', async () => {
    await org.rpc('webhooks.endpoints.create', { url: receiver.url, subscriptions: ['*'] });
    receiver.replyWith(['hang'], { status: 204 });
    const sending = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { leaseSeconds: LEASE_SECONDS });
    const other = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { leaseSeconds: LEASE_SECONDS });
    workers.push(sending, other);
    await org.rpc('records.create', { model: org.modelKey, data: { title: 'Slow to answer' } });
    sending.wake();
    await receiver.waitFor(1);
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
  }, 30_000);
});
