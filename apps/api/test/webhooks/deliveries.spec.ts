import { createHmac, randomBytes } from 'node:crypto';
import { verifyWebhookSignature } from '@mrp/events';
import type { EventEnvelope } from '@mrp/platform';
import { PLATFORM_ADMIN, sessionToken, startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, publicApi, queryDatabase, rpcOk, sleep, type OrganizationWithKey } from '../support/public-api-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

interface EndpointView {
  id: string;
  state: string;
  consecutiveFailures: number;
  disabledReason: string | null;
}
interface CreatedEndpoint {
  endpoint: EndpointView;
  secret: string;
}

const RETRY_BASE_SECONDS = 0.05;

/** An api with a delivery worker in the same process, woken by NOTIFY and polling every 50 ms (or as given). */
async function startApiWithWorker(env: Record<string, string> = {}, pollIntervalMs = 500) {
  const api = await startTestApi({
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_RETRY_BASE_SECONDS: String(RETRY_BASE_SECONDS),
    WEBHOOK_TIMEOUT_SECONDS: '1',
    // The isolation test sends 100 changes through two keys.
    PUBLIC_API_RATE_PER_SECOND: '1000',
    PUBLIC_API_BURST: '1000',
    ...env,
  });
  const worker = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { pollIntervalMs });
  await api.runtime.jobs.start();
  worker.start();
  const events: EventEnvelope[] = [];
  api.runtime.bus.subscribe('*', (event) => {
    events.push(event);
  });
  return {
    api,
    events,
    async close() {
      await worker.stop();
      await api.close();
    },
  };
}

async function createEndpoint(org: OrganizationWithKey, url: string, subscriptions: string[] = ['*']): Promise<CreatedEndpoint> {
  return org.rpc<CreatedEndpoint>('webhooks.endpoints.create', { url, subscriptions, description: 'test receiver' });
}

async function createRecord(org: OrganizationWithKey, title: string): Promise<{ id: string }> {
  return org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title } });
}

const deliveriesOf = (api: TestApi, endpointId: string) =>
  queryDatabase<{ id: string; status: string; attempt_count: number; event_type: string; last_error: string | null }>(
    api,
    'SELECT id, status, attempt_count, event_type, last_error FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at',
    [endpointId],
  );

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

describe('webhook delivery, end to end', () => {
  let setup: Awaited<ReturnType<typeof startApiWithWorker>>;
  let api: TestApi;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    setup = await startApiWithWorker();
    api = setup.api;
  });
  afterAll(() => setup.close());
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(() => receiver.close());

  it('POSTs the event with the exact headers and a signature over "<timestamp>.<body>"', async () => {
    const org = await createOrganizationWithKey(api);
    const { secret, endpoint } = await createEndpoint(org, `${receiver.url}/hooks`, ['data-models.record-created']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const record = await createRecord(org, 'Ship it');

    const [delivery] = await receiver.waitFor(1);
    const event = JSON.parse(delivery.rawBody) as EventEnvelope & { payload: { recordId: string; modelKey: string } };
    expect(event).toMatchObject({
      type: 'data-models.record-created',
      organizationId: org.organizationId,
      subscriptionAliases: [`data-models.${org.modelKey}.record-created`],
      payload: { recordId: record.id, modelKey: org.modelKey },
    });
    const headers = delivery.headers;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toMatch(/^ModelRecords-Webhooks\//);
    expect(headers['webhook-attempt']).toBe('1');
    const [stored] = await deliveriesOf(api, endpoint.id);
    expect(headers['webhook-delivery-id']).toBe(stored.id);
    expect(headers['idempotency-key']).toEqual(expect.any(String));
    const timestamp = Number(headers['webhook-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(30);
    // Computed here independently of the platform's signing code.
    const expected = createHmac('sha256', secret).update(`${timestamp}.${delivery.rawBody}`).digest('hex');
    expect(headers['webhook-signature']).toBe(`v1=${expected}`);
    await expect(verifyWebhookSignature(secret, headers, delivery.rawBody)).resolves.toMatchObject({ id: event.id });

    await until(() => deliveriesOf(api, endpoint.id), ([row]) => row?.status === 'succeeded');
  });

  it('matches exact types, per-model aliases, prefixes and *', async () => {
    const org = await createOrganizationWithKey(api);
    const exact = await startWebhookReceiver();
    const alias = await startWebhookReceiver();
    const prefix = await startWebhookReceiver();
    const other = await startWebhookReceiver();
    try {
      await createEndpoint(org, exact.url, ['data-models.record-updated']);
      await createEndpoint(org, alias.url, [`data-models.${org.modelKey}.record-created`]);
      await createEndpoint(org, prefix.url, ['data-models.*']);
      await createEndpoint(org, other.url, ['rbac.*']);
      await createEndpoint(org, receiver.url, ['*']);
      const record = await createRecord(org, 'First');
      await org.rpc('records.update', { id: record.id, data: { title: 'Second' } });
      await org.rpc('rbac.roles.create', { key: 'auditor', name: 'Auditor', permissions: ['records.read'] });

      const types = async (target: WebhookReceiver, count: number) =>
        (await target.waitFor(count)).map((request) => (JSON.parse(request.rawBody) as EventEnvelope).type).sort();
      expect(await types(exact, 1)).toEqual(['data-models.record-updated']);
      expect(await types(alias, 1)).toEqual(['data-models.record-created']);
      expect(await types(prefix, 2)).toEqual(['data-models.record-created', 'data-models.record-updated']);
      expect(await types(other, 1)).toEqual(['rbac.role-created']);
      expect(await types(receiver, 3)).toEqual(['data-models.record-created', 'data-models.record-updated', 'rbac.role-created']);
      await sleep(300);
      expect([exact, alias, prefix, other].map((target) => target.received.length)).toEqual([1, 1, 2, 1]);
    } finally {
      await Promise.all([exact, alias, prefix, other].map((target) => target.close()));
    }
  });

  it("never shows one organization's events to another's endpoint, over 100 generated events", async () => {
    const orgA = await createOrganizationWithKey(api);
    const orgB = await createOrganizationWithKey(api);
    const receiverB = await startWebhookReceiver();
    try {
      await createEndpoint(orgA, receiver.url);
      await createEndpoint(orgB, receiverB.url);
      const titles = Array.from({ length: 100 }, (_value, index) => ({ org: index % 3 === 0 ? orgB : orgA, title: `Event ${index}` }));
      const clientA = publicApi(api, orgA.key.token);
      const clientB = publicApi(api, orgB.key.token);
      for (const { org, title } of titles) {
        const client = org === orgA ? clientA : clientB;
        expect((await client.post(`/models/${org.modelKey}/records`, { data: { title } })).status).toBe(201);
      }
      const expectedA = titles.filter((entry) => entry.org === orgA).map((entry) => entry.title).sort();
      const expectedB = titles.filter((entry) => entry.org === orgB).map((entry) => entry.title).sort();
      const receivedTitles = async (target: WebhookReceiver, count: number) =>
        (await target.waitFor(count, 30_000))
          .map((request) => JSON.parse(request.rawBody) as EventEnvelope & { organizationId: string; payload: { record: { title: string } } })
          .map((event) => ({ organizationId: event.organizationId, title: event.payload.record.title }));
      const gotA = await receivedTitles(receiver, expectedA.length);
      const gotB = await receivedTitles(receiverB, expectedB.length);
      await sleep(300);
      expect(receiver.received.length).toBe(expectedA.length);
      expect(receiverB.received.length).toBe(expectedB.length);
      expect(new Set(gotA.map((event) => event.organizationId))).toEqual(new Set([orgA.organizationId]));
      expect(new Set(gotB.map((event) => event.organizationId))).toEqual(new Set([orgB.organizationId]));
      expect(gotA.map((event) => event.title).sort()).toEqual(expectedA);
      expect(gotB.map((event) => event.title).sort()).toEqual(expectedB);
    } finally {
      await receiverB.close();
    }
  });

  it("routes a user's events to the user's organizations and to platform endpoints, never elsewhere", async () => {
    const orgA = await createOrganizationWithKey(api);
    const orgB = await createOrganizationWithKey(api);
    const receiverB = await startWebhookReceiver();
    const platformReceiver = await startWebhookReceiver();
    const admin = await sessionToken(PLATFORM_ADMIN);
    const platform = await rpcOk<CreatedEndpoint>(
      api,
      'webhooks.endpoints.create',
      { platform: true, url: platformReceiver.url, subscriptions: ['user.profile-updated'] },
      { token: admin },
    );
    try {
      await createEndpoint(orgA, receiver.url, ['user.*']);
      await createEndpoint(orgB, receiverB.url, ['user.*']);
      const member = await orgA.addMember(['member']);
      await rpcOk(api, 'users.updateProfile', { displayName: 'Renamed' }, { token: member.session });

      const [toA] = await receiver.waitFor(1);
      const [toPlatform] = await platformReceiver.waitFor(1);
      for (const delivery of [toA, toPlatform]) {
        expect(JSON.parse(delivery.rawBody)).toMatchObject({ type: 'user.profile-updated', payload: { changes: ['displayName'] } });
      }
      expect(JSON.parse(toA.rawBody).userId).toEqual(expect.any(String));
      expect(toA.headers['idempotency-key']).not.toBe(toPlatform.headers['idempotency-key']);
      await sleep(300);
      expect(receiverB.received).toHaveLength(0);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await rpcOk(api, 'webhooks.endpoints.delete', { platform: true, id: platform.endpoint.id }, { token: admin });
      await Promise.all([receiverB.close(), platformReceiver.close()]);
    }
  });

  it('retries a failing receiver 5 times with growing delays, then fails the delivery, tells the operators and disables the endpoint', async () => {
    const org = await createOrganizationWithKey(api);
    receiver.replyWith([], { status: 500, body: 'down for maintenance' });
    const { endpoint } = await createEndpoint(org, receiver.url, ['data-models.record-created']);
    await createRecord(org, 'Doomed');

    const attempts = await receiver.waitFor(5, 20_000);
    expect(attempts.map((attempt) => attempt.headers['webhook-attempt'])).toEqual(['1', '2', '3', '4', '5']);
    expect(new Set(attempts.map((attempt) => attempt.headers['idempotency-key'])).size).toBe(1);
    for (let n = 1; n <= 4; n += 1) {
      const gapMs = attempts[n].receivedAt - attempts[n - 1].receivedAt;
      expect(gapMs).toBeGreaterThanOrEqual(RETRY_BASE_SECONDS * 4 ** (n - 1) * 0.9 * 1000 - 5);
    }
    const [delivery] = await until(() => deliveriesOf(api, endpoint.id), ([row]) => row?.status === 'failed');
    expect(delivery).toMatchObject({ attempt_count: 5, last_error: 'HTTP 500' });
    await sleep(300);
    expect(receiver.received).toHaveLength(5);

    const attemptRows = await queryDatabase<{ attempt: number; status_code: number; response_body: string }>(
      api,
      'SELECT attempt, status_code, response_body FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [delivery.id],
    );
    expect(attemptRows.map((row) => [row.attempt, row.status_code, row.response_body])).toEqual(
      [1, 2, 3, 4, 5].map((attempt) => [attempt, 500, 'down for maintenance']),
    );

    const { items } = await rpcOk<{ items: Array<{ kind: string; body: string; data: Record<string, unknown> }> }>(
      api,
      'notifications.list',
      {},
      { token: await sessionToken(PLATFORM_ADMIN) },
    );
    const notice = items.find((item) => item.kind === 'webhook.delivery-failed' && item.data.deliveryId === delivery.id);
    expect(notice?.data).toEqual({ endpointId: endpoint.id, deliveryId: delivery.id, eventType: 'data-models.record-created', lastError: 'HTTP 500', failedDeliveries: 1 });
    expect(notice?.body).toContain(endpoint.id);

    const { items: endpoints } = await org.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {});
    expect(endpoints[0]).toMatchObject({ state: 'disabled', consecutiveFailures: 5 });
    const disabled = setup.events.filter((event) => event.type === 'webhook.endpoint-disabled-after-failures');
    expect(disabled.map((event) => event.payload)).toContainEqual({
      endpointId: endpoint.id,
      url: receiver.url,
      consecutiveFailures: 5,
      lastError: 'HTTP 500',
    });
    // Disabled: the next change queues nothing for it.
    await createRecord(org, 'After');
    await sleep(300);
    expect(await deliveriesOf(api, endpoint.id)).toHaveLength(1);
  });

  it('resets the failure count on a success', async () => {
    const org = await createOrganizationWithKey(api);
    receiver.replyWith([{ status: 500 }, { status: 502 }, { status: 200 }]);
    const { endpoint } = await createEndpoint(org, receiver.url, ['data-models.record-created']);
    await createRecord(org, 'Flaky');
    await receiver.waitFor(3);
    await until(() => deliveriesOf(api, endpoint.id), ([row]) => row?.status === 'succeeded');
    const { items } = await org.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {});
    expect(items[0]).toMatchObject({ state: 'enabled', consecutiveFailures: 0 });
  });

  it('disables the endpoint at once on 410 Gone', async () => {
    const org = await createOrganizationWithKey(api);
    receiver.replyWith([{ status: 410 }]);
    const { endpoint } = await createEndpoint(org, receiver.url, ['data-models.record-created']);
    await createRecord(org, 'Gone');
    await receiver.waitFor(1);
    const [delivery] = await until(() => deliveriesOf(api, endpoint.id), ([row]) => row?.status === 'failed');
    expect(delivery.attempt_count).toBe(1);
    const { items } = await org.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {});
    expect(items[0]).toMatchObject({ state: 'disabled', disabledReason: 'the receiver answered 410 Gone' });
  });

  it("waits at least the receiver's Retry-After on 429 and 503", async () => {
    const org = await createOrganizationWithKey(api);
    receiver.replyWith([
      { status: 429, headers: { 'Retry-After': '1' } },
      { status: 503, headers: { 'Retry-After': '1' } },
      { status: 200 },
    ]);
    await createEndpoint(org, receiver.url, ['data-models.record-created']);
    await createRecord(org, 'Busy');
    const attempts = await receiver.waitFor(3);
    expect(attempts[1].receivedAt - attempts[0].receivedAt).toBeGreaterThanOrEqual(990);
    expect(attempts[2].receivedAt - attempts[1].receivedAt).toBeGreaterThanOrEqual(990);
  });

  it('does not follow redirects', async () => {
    const org = await createOrganizationWithKey(api);
    const internal = await startWebhookReceiver();
    try {
      receiver.replyWith([], { status: 302, headers: { Location: `${internal.url}/admin` } });
      const { endpoint } = await createEndpoint(org, receiver.url, ['data-models.record-created']);
      await createRecord(org, 'Redirected');
      await receiver.waitFor(1);
      await until(() => deliveriesOf(api, endpoint.id), ([row]) => row?.last_error === 'HTTP 302');
      expect(internal.received).toHaveLength(0);
    } finally {
      await internal.close();
    }
  });

  it('fails an attempt that outlasts the timeout', async () => {
    const org = await createOrganizationWithKey(api);
    receiver.replyWith(['hang'], { status: 200 });
    const { endpoint } = await createEndpoint(org, receiver.url, ['data-models.record-created']);
    await createRecord(org, 'Slow');
    await receiver.waitFor(2, 10_000);
    const [delivery] = await until(() => deliveriesOf(api, endpoint.id), ([row]) => row?.status === 'succeeded');
    const [first] = await queryDatabase<{ error: string; duration_ms: number }>(
      api,
      'SELECT error, duration_ms FROM webhook_delivery_attempts WHERE delivery_id = $1 AND attempt = 1',
      [delivery.id],
    );
    expect(first.error).toBe('No complete response within 1000 ms');
    expect(first.duration_ms).toBeGreaterThanOrEqual(950);
  });

  it('never stores the secret in plaintext, and signs with both secrets during a rotation overlap', async () => {
    const org = await createOrganizationWithKey(api);
    const { endpoint, secret } = await createEndpoint(org, receiver.url, ['data-models.record-created']);
    const rotated = await org.rpc<CreatedEndpoint>('webhooks.endpoints.rotateSecret', { id: endpoint.id, overlapSeconds: 3600 });
    expect(rotated.secret).not.toBe(secret);
    const [row] = await queryDatabase<Record<string, unknown>>(api, 'SELECT * FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(rotated.secret);
    expect(stored).not.toContain(secret.slice('whsec_'.length));

    await createRecord(org, 'Rotated');
    const [delivery] = await receiver.waitFor(1);
    const timestamp = delivery.headers['webhook-timestamp'];
    const sign = (key: string) => `v1=${createHmac('sha256', key).update(`${timestamp}.${delivery.rawBody}`).digest('hex')}`;
    expect(delivery.headers['webhook-signature']).toBe(`${sign(rotated.secret)} ${sign(secret)}`);
  });
});

describe('waking the delivery worker', () => {
  it('delivers a change at once on the wake-up sent after its commit, with no poll to fall back on', async () => {
    const setup = await startApiWithWorker({}, 3_600_000);
    const receiver = await startWebhookReceiver();
    try {
      const org = await createOrganizationWithKey(setup.api);
      await createEndpoint(org, `${receiver.url}/hooks`, ['data-models.record-created']);
      // A burst within one wake-up interval, then one more after it: each is delivered.
      const created = await Promise.all(['one', 'two', 'three'].map((title) => createRecord(org, title)));
      await sleep(50);
      created.push(await createRecord(org, 'four'));
      const deliveries = await receiver.waitFor(4);
      const delivered = deliveries.map((delivery) => (JSON.parse(delivery.rawBody) as { payload: { recordId: string } }).payload.recordId);
      expect(delivered.sort()).toEqual(created.map((record) => record.id).sort());
    } finally {
      await receiver.close();
      await setup.close();
    }
  });
});

describe('webhook delivery without a plaintext secret', () => {
  it('fails every attempt with "no plaintext secret available" and disables the endpoint after 5', async () => {
    const setup = await startApiWithWorker({ WEBHOOK_SECRET_ENCRYPTION_KEY: '' });
    const receiver = await startWebhookReceiver();
    try {
      const org = await createOrganizationWithKey(setup.api);
      const { endpoint } = await createEndpoint(org, receiver.url, ['data-models.record-created']);
      await createRecord(org, 'Unsigned');
      const [delivery] = await until(() => deliveriesOf(setup.api, endpoint.id), ([row]) => row?.status === 'failed', 20_000);
      expect(delivery).toMatchObject({ attempt_count: 5, last_error: 'no plaintext secret available' });
      expect(receiver.received).toHaveLength(0);
      const { items } = await org.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {});
      expect(items[0]).toMatchObject({ state: 'disabled', consecutiveFailures: 5 });
    } finally {
      await receiver.close();
      await setup.close();
    }
  });
});

describe("an operator's secret resolver (WEBHOOK_SECRET_RESOLVER)", () => {
  it('signs with the secret the resolver returns, and refuses one that is not the endpoint\'s', async () => {
    const setup = await startApiWithWorker({ WEBHOOK_SECRET_ENCRYPTION_KEY: '', WEBHOOK_SECRET_RESOLVER: './apps/api/test/support/vault-secret-resolver.ts' });
    const receiver = await startWebhookReceiver();
    try {
      const org = await createOrganizationWithKey(setup.api);
      const good = await createEndpoint(org, `${receiver.url}/good`, ['data-models.record-created']);
      const bad = await createEndpoint(org, `${receiver.url}/bad`, ['data-models.record-created']);
      expect(good.endpoint).toMatchObject({ signingSecretStored: false });
      process.env.TEST_WEBHOOK_VAULT = JSON.stringify({ [good.endpoint.id]: good.secret, [bad.endpoint.id]: 'whsec_not-the-one-that-was-issued' });
      await createRecord(org, 'Vaulted');
      const [delivery] = await receiver.waitFor(1);
      await expect(verifyWebhookSignature(good.secret, delivery.headers, delivery.rawBody)).resolves.toMatchObject({ type: 'data-models.record-created' });
      const [refused] = await until(() => deliveriesOf(setup.api, bad.endpoint.id), ([row]) => row?.last_error !== null && row !== undefined);
      expect(refused.last_error).toBe('no plaintext secret available');
      await sleep(200);
      expect(receiver.received).toHaveLength(1);
    } finally {
      delete process.env.TEST_WEBHOOK_VAULT;
      await receiver.close();
      await setup.close();
    }
  });

  it('stops the start in one line when the module has no resolveWebhookSecret', async () => {
    await expect(startTestApi({ WEBHOOK_SECRET_RESOLVER: './apps/api/test/support/webhook-receiver.ts' })).rejects.toThrow(
      'WEBHOOK_SECRET_RESOLVER "./apps/api/test/support/webhook-receiver.ts" does not export a resolveWebhookSecret function',
    );
  });
});
