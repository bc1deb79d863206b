import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, queryDatabase, sleep, type OrganizationWithKey } from '../support/public-api-fixtures';

/** What the receiver took from one request. */
interface Arrival {
  recordId: string | null;
  title: string | null;
  sequence: number;
  deliveryId: string;
  accepted: boolean;
}

interface Receiver {
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

/**
 * A receiver on loopback answering 500 to a random fifth of the requests. It never fails one
 * delivery three times, nor three requests in a row, so no delivery fails for good and the endpoint
 * is never disabled (five consecutive failures) by chance: every delivery must arrive.
 */
async function startFlakyReceiver(failureRate: number): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const failuresOf = new Map<string, number>();
  let failuresInARow = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload?: { recordId?: string; record?: { data?: { title?: string } } } };
      const deliveryId = String(request.headers['webhook-delivery-id']);
      const fail = Math.random() < failureRate && (failuresOf.get(deliveryId) ?? 0) < 2 && failuresInARow < 2;
      if (fail) failuresOf.set(deliveryId, (failuresOf.get(deliveryId) ?? 0) + 1);
      failuresInARow = fail ? failuresInARow + 1 : 0;
      arrivals.push({
        recordId: event.payload?.recordId ?? null,
        title: event.payload?.record?.data?.title ?? null,
        sequence: Number(request.headers['webhook-sequence']),
        deliveryId,
        accepted: !fail,
      });
      response.writeHead(fail ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until(done: () => boolean | Promise<boolean>, what: string, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(100);
  }
}

const RECORDS = 10;
const UPDATES_PER_RECORD = 100;

describe('ordered delivery (ordering: "per-record") and Webhook-Sequence', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let close: () => Promise<void>;

  beforeAll(async () => {
    api = await startTestApi({
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      // Retries come due within tens of milliseconds.
      WEBHOOK_RETRY_BASE_SECONDS: '0.02',
      WEBHOOK_TIMEOUT_SECONDS: '2',
      PUBLIC_API_RATE_PER_SECOND: '100000',
      PUBLIC_API_BURST: '100000',
      // Ten chains of updates at once on a loaded machine: they queue for the organization's connections, never refused.
      ORGANIZATION_QUEUE_TIMEOUT_MS: '60000',
    });
    const worker = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { pollIntervalMs: 500 });
    await api.runtime.jobs.start();
    worker.start();
    close = async () => {
      await worker.stop();
      await api.close();
    };
    org = await createOrganizationWithKey(api);
  });
  afterAll(() => close());

  it('is an option of create and update, none by default', async () => {
    const created = await org.rpc<{ endpoint: { id: string; ordering: string } }>('webhooks.endpoints.create', {
      url: 'http://127.0.0.1:9/option',
      subscriptions: ['*'],
    });
    expect(created.endpoint.ordering).toBe('none');
    const updated = await org.rpc<{ ordering: string }>('webhooks.endpoints.update', { id: created.endpoint.id, ordering: 'per-record' });
    expect(updated.ordering).toBe('per-record');
    const described = await org.rpc<{ description: string; ordering: string }>('webhooks.endpoints.update', { id: created.endpoint.id, description: 'kept' });
    expect(described).toMatchObject({ description: 'kept', ordering: 'per-record' });
    const refused = await api.rpc('webhooks.endpoints.update', { id: created.endpoint.id, ordering: 'per-model' }, { token: org.owner.session, organizationId: org.organizationId });
    expect(refused.status).toBe(400);
    await org.rpc('webhooks.endpoints.delete', { id: created.endpoint.id });
  });

  it('delivers 1,000 updates of 10 records in order for every record while the receiver fails a random fifth; every endpoint numbers its deliveries 1, 2, 3...', async () => {
    const ordered = await startFlakyReceiver(0.2);
    const unordered = await startFlakyReceiver(0);
    try {
      const records: string[] = [];
      for (let index = 0; index < RECORDS; index += 1) {
        records.push((await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'start' } })).id);
      }
      const orderedEndpoint = await org.rpc<{ endpoint: { id: string } }>('webhooks.endpoints.create', {
        url: ordered.url,
        subscriptions: ['data-models.record-updated'],
        ordering: 'per-record',
      });
      await org.rpc('webhooks.endpoints.create', { url: unordered.url, subscriptions: ['data-models.record-updated'] });

      // Each record's updates one after another (so their commit order is known); the records at once.
      await Promise.all(
        records.map(async (id) => {
          for (let update = 1; update <= UPDATES_PER_RECORD; update += 1) {
            await org.rpc('records.update', { id, data: { title: String(update) } });
          }
        }),
      );
      const total = RECORDS * UPDATES_PER_RECORD;
      await until(() => ordered.arrivals.filter((arrival) => arrival.accepted).length >= total && unordered.arrivals.length >= total, 'every delivery');

      const failed = ordered.arrivals.filter((arrival) => !arrival.accepted).length;
      expect(failed).toBeGreaterThan(total / 10);
      for (const recordId of records) {
        const arrivals = ordered.arrivals.filter((arrival) => arrival.recordId === recordId);
        // Every request about the record, retries included, came in order: a failed one was sent
        // again before any later one.
        const titles = arrivals.map((arrival) => Number(arrival.title));
        expect(titles).toEqual([...titles].sort((a, b) => a - b));
        const accepted = arrivals.filter((arrival) => arrival.accepted);
        expect(accepted.map((arrival) => Number(arrival.title))).toEqual(Array.from({ length: UPDATES_PER_RECORD }, (_, index) => index + 1));
        const sequences = accepted.map((arrival) => arrival.sequence);
        expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      }
      // The sequence numbers of each endpoint: one per delivery, the same on its retries, 1 to 1,000 without a gap.
      for (const receiver of [ordered, unordered]) {
        const perDelivery = new Map<string, Set<number>>();
        for (const arrival of receiver.arrivals) perDelivery.set(arrival.deliveryId, (perDelivery.get(arrival.deliveryId) ?? new Set()).add(arrival.sequence));
        expect([...perDelivery.values()].every((numbers) => numbers.size === 1)).toBe(true);
        const numbers = [...perDelivery.values()].map((numbers) => [...numbers][0]).sort((a, b) => a - b);
        expect(numbers).toEqual(Array.from({ length: total }, (_, index) => index + 1));
      }
      // Each recorded as succeeded (the last answers may still be being recorded).
      const owed = async () =>
        (
          await queryDatabase<{ owed: number }>(api, "SELECT count(*)::int AS owed FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'succeeded'", [
            orderedEndpoint.endpoint.id,
          ])
        )[0].owed;
      await until(async () => (await owed()) === 0, 'every delivery recorded as succeeded', 30_000);
    } finally {
      await ordered.close();
      await unordered.close();
    }
  }, 300_000);
});
