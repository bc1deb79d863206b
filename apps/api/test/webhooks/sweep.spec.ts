import { randomBytes } from 'node:crypto';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, queryDatabase } from '../support/public-api-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const CRON_SECRET = 'cron-secret-for-tests-0123456789';

/** No worker runs here: only the sweep delivers. */
describe('/cron/sweep-webhook-deliveries', () => {
  let api: TestApi;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    api = await startTestApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_TIMEOUT_SECONDS: '2' });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await api.close();
  });

  const sweep = () => api.request('/cron/sweep-webhook-deliveries', { method: 'POST', headers: { Authorization: `Bearer ${CRON_SECRET}` } });

  it('delivers every due delivery nobody holds, each once even with two sweeps at once', async () => {
    const org = await createOrganizationWithKey(api);
    await org.rpc('webhooks.endpoints.create', { url: receiver.url, subscriptions: ['data-models.record-created'] });
    const count = 30;
    for (let index = 0; index < count; index++) await org.rpc('records.create', { model: org.modelKey, data: { title: `Swept ${index}` } });
    // A live worker holds one of them right now (it fetched its job): the sweep leaves it alone.
    const [{ delivery_queue }] = await queryDatabase<{ delivery_queue: number }>(api, 'SELECT delivery_queue FROM webhook_endpoints');
    const [heldJob] = await api.runtime.jobs.fetch<{ deliveryId: string }>(`webhook.deliver.${delivery_queue}`, 1);
    const held = heldJob.data.deliveryId;

    const [first, second] = await Promise.all([sweep(), sweep()]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const results = [(await first.json()) as { task: string; processed: number }, (await second.json()) as { task: string; processed: number }];
    expect(results.map((result) => result.task)).toEqual(['sweep-webhook-deliveries', 'sweep-webhook-deliveries']);
    expect(results[0].processed + results[1].processed).toBe(count - 1);

    expect(receiver.received).toHaveLength(count - 1);
    const deliveryIds = receiver.received.map((request) => request.headers['webhook-delivery-id']);
    expect(new Set(deliveryIds).size).toBe(count - 1);
    expect(deliveryIds).not.toContain(held);
    const statuses = await queryDatabase<{ status: string; count: number }>(
      api,
      'SELECT status, count(*)::int AS count FROM webhook_deliveries GROUP BY status ORDER BY status',
    );
    expect(statuses).toEqual([
      { status: 'pending', count: 1 },
      { status: 'succeeded', count: count - 1 },
    ]);

    // Nothing left that nobody holds: the next sweep does nothing.
    expect(await (await sweep()).json()).toEqual({ task: 'sweep-webhook-deliveries', processed: 0 });
  });

  it('refuses a wrong secret', async () => {
    const response = await api.request('/cron/sweep-webhook-deliveries', { method: 'POST', headers: { Authorization: 'Bearer wrong-secret-0123456789' } });
    expect(response.status).toBe(401);
  });
});
