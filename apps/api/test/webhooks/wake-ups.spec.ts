import { randomBytes } from 'node:crypto';
import type { DeliveryJobs, DeliveryWorker } from '@mrp/events';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, queryDatabase, type OrganizationWithKey } from '../support/public-api-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

describe("a worker's wake-ups", () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let receiver: WebhookReceiver;
  let worker: DeliveryWorker | undefined;
  beforeAll(async () => {
    api = await startTestApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    org = await createOrganizationWithKey(api);
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver.close();
    await api.close();
  });

  it('delivers a job committed and announced while a fetch that found nothing was under way, with no other wake-up', async () => {
    await org.rpc('webhooks.endpoints.create', { url: receiver.url, subscriptions: ['*'] });
    const [{ queue }] = await queryDatabase<{ queue: string }>(api, `SELECT 'webhook.deliver.' || delivery_queue AS queue FROM webhook_endpoints`);
    let created = false;
    // The fetch's statement ran before the record's commit; the commit's announcement arrives before the fetch returns.
    // The worker hears no announcement but this one, and never polls.
    const jobs: DeliveryJobs = {
      ...api.runtime.jobs,
      onDue: () => () => undefined,
      async fetch(fetchedQueue, limit) {
        const fetched = await api.runtime.jobs.fetch(fetchedQueue, limit);
        if (fetchedQueue === queue && fetched.length === 0 && !created) {
          created = true;
          await org.rpc('records.create', { model: org.modelKey, data: { title: 'Committed during a fetch' } });
          worker?.wake();
        }
        return fetched as never;
      },
    };
    worker = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { jobs, pollIntervalMs: 3_600_000 });
    worker.start();
    const [delivered] = await receiver.waitFor(1, 5_000);
    expect(created).toBe(true);
    expect(JSON.parse(delivered.rawBody)).toMatchObject({ type: 'data-models.record-created', payload: { record: { data: { title: 'Committed during a fetch' } } } });
  });
});
