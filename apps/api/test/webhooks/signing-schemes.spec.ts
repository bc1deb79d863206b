import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import type { DeliveryWorker } from '@mrp/events';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, type OrganizationWithKey } from '../support/public-api-fixtures';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver';

interface CreatedEndpoint {
  endpoint: { id: string; signing: string };
  secret: string;
}

const header = (received: ReceivedWebhook, name: string) => String(received.headers[name.toLowerCase()]);

/** Stripe's own verifier, through the documented mapping of the contract's headers to its `Stripe-Signature`. */
function verifyWithStripe(received: ReceivedWebhook, secret: string): unknown {
  const signatures = header(received, 'Webhook-Signature').split(' ');
  const stripeSignature = [`t=${header(received, 'Webhook-Timestamp')}`, ...signatures].join(',');
  return new Stripe('sk_test_unused').webhooks.constructEvent(received.rawBody, stripeSignature, secret);
}

/** The Standard Webhooks verifier, given the request's headers as they arrived. */
function verifyWithStandardWebhooks(received: ReceivedWebhook, secret: string): unknown {
  return new Webhook(secret).verify(received.rawBody, {
    'webhook-id': header(received, 'webhook-id'),
    'webhook-timestamp': header(received, 'webhook-timestamp'),
    'webhook-signature': header(received, 'webhook-signature'),
  });
}

describe('signing schemes of an endpoint, checked by the verifiers receivers use', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let receiver: WebhookReceiver;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    api = await startTestApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_TIMEOUT_SECONDS: '2' });
    org = await createOrganizationWithKey(api);
    receiver = await startWebhookReceiver();
    worker = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { pollIntervalMs: 500 });
    await api.runtime.jobs.start();
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await receiver.close();
    await api.close();
  });

  const deliveredAfter = async (title: string) => {
    const before = receiver.received.length;
    await org.rpc('records.create', { model: org.modelKey, data: { title } });
    return (await receiver.waitFor(before + 1))[before];
  };

  it("signs as the contract says by default, which Stripe's verifier accepts once the headers are mapped", async () => {
    const { endpoint, secret } = await org.rpc<CreatedEndpoint>('webhooks.endpoints.create', { url: receiver.url, subscriptions: ['data-models.record-created'] });
    expect(endpoint.signing).toBe('contract');
    const received = await deliveredAfter('Contract scheme');
    expect(header(received, 'Webhook-Signature')).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(received.headers['webhook-id']).toBeUndefined();
    expect(verifyWithStripe(received, secret)).toMatchObject({ type: 'data-models.record-created' });
    expect(() => verifyWithStandardWebhooks(received, secret)).toThrow();
    await org.rpc('webhooks.endpoints.delete', { id: endpoint.id });
  });

  it('signs with Standard Webhooks when the endpoint asks, and both secrets verify during a rotation overlap', async () => {
    const { endpoint, secret } = await org.rpc<CreatedEndpoint>('webhooks.endpoints.create', {
      url: receiver.url,
      subscriptions: ['data-models.record-created'],
      signing: 'standard-webhooks',
    });
    expect(endpoint.signing).toBe('standard-webhooks');
    const received = await deliveredAfter('Standard scheme');
    expect(header(received, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(header(received, 'webhook-id')).toBe(header(received, 'Webhook-Delivery-Id'));
    expect(verifyWithStandardWebhooks(received, secret)).toMatchObject({ type: 'data-models.record-created' });

    const rotated = await org.rpc<CreatedEndpoint>('webhooks.endpoints.rotateSecret', { id: endpoint.id, overlapSeconds: 3600 });
    const duringOverlap = await deliveredAfter('Rotated');
    expect(header(duringOverlap, 'webhook-signature').split(' ')).toHaveLength(2);
    for (const key of [rotated.secret, secret]) expect(verifyWithStandardWebhooks(duringOverlap, key)).toMatchObject({ type: 'data-models.record-created' });
    await org.rpc('webhooks.endpoints.delete', { id: endpoint.id });
  });

  it('switches scheme only with a new secret and no overlap', async () => {
    const { endpoint } = await org.rpc<CreatedEndpoint>('webhooks.endpoints.create', { url: receiver.url, subscriptions: ['data-models.record-created'] });
    const refused = await api.rpc('webhooks.endpoints.rotateSecret', { id: endpoint.id, overlapSeconds: 60, signing: 'standard-webhooks' }, { token: org.owner.session, organizationId: org.organizationId });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('overlapSeconds');
    const switched = await org.rpc<CreatedEndpoint>('webhooks.endpoints.rotateSecret', { id: endpoint.id, signing: 'standard-webhooks' });
    expect(switched.endpoint.signing).toBe('standard-webhooks');
    const received = await deliveredAfter('Switched');
    expect(verifyWithStandardWebhooks(received, switched.secret)).toMatchObject({ type: 'data-models.record-created' });
    await org.rpc('webhooks.endpoints.delete', { id: endpoint.id });
  });
});
