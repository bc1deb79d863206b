import { systemPrincipal } from '@mrp/platform';
import { createWebhookTestBed, type WebhookTestBed } from '@mrp/events/testing';
import { WEBHOOK_DELIVERY_PERMISSION, createRecordAttemptsProcedure, type AttemptResult } from './record-attempts';

describe('webhooks.deliveries.recordAttempts', () => {
  let bed: WebhookTestBed;
  const notices: unknown[] = [];
  const worker = systemPrincipal('webhook-delivery', { permissions: [WEBHOOK_DELIVERY_PERMISSION] });

  beforeAll(async () => {
    bed = await createWebhookTestBed((jobs) => [
      createRecordAttemptsProcedure({ retryBaseSeconds: 30, notifyOperators: async (_scope, message) => notices.push(message), jobs, jobExpirySeconds: 60 }),
    ]);
  });
  afterAll(() => bed.close());

  const result = (deliveryId: string, fields: Partial<AttemptResult> = {}): AttemptResult => ({
    deliveryId,
    attempt: 1,
    startedAt: new Date().toISOString(),
    durationMs: 12,
    outcome: 'succeeded',
    statusCode: 204,
    error: null,
    responseHeaders: {},
    responseBody: '',
    retryAfterSeconds: null,
    ...fields,
  });

  it('counts an attempt once when a worker reports it twice, and ignores a result for an attempt already recorded', async () => {
    const endpointId = await bed.endpoint(await bed.organization());
    const deliveryId = await bed.delivery({ endpointId });
    const recorded = await bed.call<{ recorded: number }>(
      'webhooks.deliveries.recordAttempts',
      { attempts: [result(deliveryId), result(deliveryId)] },
      worker,
    );
    expect(recorded).toEqual({ recorded: 1, nextRetryInSeconds: null, released: 0 });
    const again = await bed.call<{ recorded: number }>('webhooks.deliveries.recordAttempts', { attempts: [result(deliveryId)] }, worker);
    expect(again).toEqual({ recorded: 0, nextRetryInSeconds: null, released: 0 });
    const attempts = await bed.sql('SELECT attempt FROM webhook_delivery_attempts WHERE delivery_id = ?', [deliveryId]);
    expect(attempts).toHaveLength(1);
    const [delivery] = await bed.sql<{ status: string; attempt_count: number }>('SELECT status, attempt_count FROM webhook_deliveries WHERE id = ?', [deliveryId]);
    expect(delivery).toEqual({ status: 'succeeded', attempt_count: 1 });
  });

  it("completes the attempts' jobs in the recording's transaction", async () => {
    const endpointId = await bed.endpoint(await bed.organization());
    const deliveryId = await bed.delivery({ endpointId });
    const [{ delivery_queue }] = await bed.sql<{ delivery_queue: number }>('SELECT delivery_queue FROM webhook_endpoints WHERE id = ?', [endpointId]);
    const queue = `webhook.deliver.${delivery_queue}`;
    const [job] = await bed.jobs.fetch<{ deliveryId: string }>(queue, 10);
    expect(job.data.deliveryId).toBe(deliveryId);
    // Not recorded (refused): the job is still running, and failing it brings it back.
    await expect(
      bed.call('webhooks.deliveries.recordAttempts', { attempts: [result(deliveryId, { attempt: 0 })], jobs: [{ queue, ids: [job.id] }] }, worker),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await bed.jobs.fail(queue, [job.id], 'probe');
    const [again] = await bed.jobs.fetch<{ deliveryId: string }>(queue, 10);
    expect(again.id).toBe(job.id);
    await bed.call('webhooks.deliveries.recordAttempts', { attempts: [result(deliveryId)], jobs: [{ queue, ids: [again.id] }] }, worker);
    // Recorded: failing the completed job does nothing, it never comes back.
    await bed.jobs.fail(queue, [again.id], 'probe');
    expect(await bed.jobs.fetch(queue, 10)).toEqual([]);
  });

  it('tells the operators of deliveries failing for good once per endpoint an hour, counting them', async () => {
    const endpointId = await bed.endpoint(await bed.organization());
    const lastAttempt = () => bed.delivery({ endpointId, attemptCount: 4, attemptsLeft: 1 });
    const failed = (deliveryId: string) => result(deliveryId, { attempt: 5, outcome: 'failed', statusCode: 500, error: 'HTTP 500' });
    const noticesFor = () => notices.filter((notice) => (notice as { data: { endpointId: string } }).data.endpointId === endpointId) as Array<{ title: string; data: Record<string, unknown> }>;

    await bed.call('webhooks.deliveries.recordAttempts', { attempts: [failed(await lastAttempt()), failed(await lastAttempt()), failed(await lastAttempt())] }, worker);
    expect(noticesFor()).toHaveLength(1);
    expect(noticesFor()[0].data).toMatchObject({ failedDeliveries: 3, lastError: 'HTTP 500' });
    expect(noticesFor()[0].title).toMatch(/^3 webhook deliveries to https:\/\/receiver\.example\.com failed for good$/);

    // Within the hour: counted, not said.
    await bed.call('webhooks.deliveries.recordAttempts', { attempts: [failed(await lastAttempt())] }, worker);
    await bed.call('webhooks.deliveries.recordAttempts', { attempts: [failed(await lastAttempt())] }, worker);
    expect(noticesFor()).toHaveLength(1);

    // An hour on, the next failure brings one notice with the two held back.
    await bed.sql("UPDATE webhook_endpoints SET failure_notice_at = now() - interval '61 minutes' WHERE id = ?", [endpointId]);
    await bed.call('webhooks.deliveries.recordAttempts', { attempts: [failed(await lastAttempt())] }, worker);
    expect(noticesFor().map((notice) => notice.data.failedDeliveries)).toEqual([3, 3]);
    const [state] = await bed.sql<{ failures_unannounced: number }>('SELECT failures_unannounced FROM webhook_endpoints WHERE id = ?', [endpointId]);
    expect(state.failures_unannounced).toBe(0);
  });

  it('is refused to a system principal of another task, and unknown to everyone else', async () => {
    const deliveryId = await bed.delivery({ endpointId: await bed.endpoint(await bed.organization()) });
    const input = { attempts: [result(deliveryId)] };
    await expect(bed.call('webhooks.deliveries.recordAttempts', input, systemPrincipal('process-account-deletions'))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(bed.call('webhooks.deliveries.recordAttempts', input, bed.platformAdmin())).rejects.toMatchObject({ code: 'not_found' });
  });
});
