import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { DeliveryWorker } from '@mrp/events';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, sleep, type OrganizationWithKey } from '../support/public-api-fixtures';

const SLOW_ENDPOINTS = 50;
const SLOW_ANSWER_MS = 9_000;
const SAMPLES = 20;
/** The worker's slots (its default `maxInFlight`). */
const SLOTS = 100;

/** One receiver: `/slow/...` answers after 9 s, `/fast` at once; it counts the slow requests open at once. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  const held = new Set<ServerResponse>();
  const slow = { open: 0, most: 0 };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url?.startsWith('/slow/')) {
        slow.open += 1;
        slow.most = Math.max(slow.most, slow.open);
        held.add(response);
        setTimeout(() => {
          slow.open -= 1;
          held.delete(response);
          if (!response.destroyed) response.writeHead(204).end();
        }, SLOW_ANSWER_MS).unref();
        return;
      }
      const event = JSON.parse(body) as { payload: { recordId: string } };
      arrivals.set(event.payload.recordId, Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    slow,
    async close() {
      held.forEach((response) => response.destroy());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook delivery shares the worker among organizations', () => {
  let api: TestApi;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: DeliveryWorker;
  let busy: OrganizationWithKey;
  let quiet: OrganizationWithKey;

  beforeAll(async () => {
    api = await startTestApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_TIMEOUT_SECONDS: '10' });
    receiver = await startReceiver();
    busy = await createOrganizationWithKey(api);
    quiet = await createOrganizationWithKey(api);
    for (let index = 0; index < SLOW_ENDPOINTS; index++) {
      await busy.rpc('webhooks.endpoints.create', { url: `${receiver.url}/slow/${index}`, subscriptions: ['data-models.record-created'] });
    }
    await quiet.rpc('webhooks.endpoints.create', { url: `${receiver.url}/fast`, subscriptions: ['data-models.record-created'] });
    worker = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { maxInFlight: SLOTS });
    await api.runtime.jobs.start();
    worker.start();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await worker?.stop();
    await api?.close();
  });

  it("keeps a quiet organization's deliveries under a second while another's slow endpoints fill the worker", async () => {
    // 20 changes, 1,000 deliveries to endpoints that answer after 9 s: ten times what the worker can hold.
    for (let index = 0; index < 20; index++) await busy.rpc('records.create', { model: busy.modelKey, data: { title: `Busy ${index}` } });
    const deadline = Date.now() + 20_000;
    while (receiver.slow.open < SLOTS / 2 && Date.now() < deadline) await sleep(50);

    const delays: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample++) {
      const record = await quiet.rpc<{ id: string }>('records.create', { model: quiet.modelKey, data: { title: `Quiet ${sample}` } });
      const committed = Date.now();
      const waitUntil = Date.now() + 10_000;
      while (!receiver.arrivals.has(record.id) && Date.now() < waitUntil) await sleep(5);
      delays.push((receiver.arrivals.get(record.id) ?? Number.POSITIVE_INFINITY) - committed);
      await sleep(150);
    }
    // The busy organization was saturated the whole time, and held no more than its share:
    // three quarters of the slots while alone, so the quiet one's deliveries never wait for a slot.
    expect(receiver.slow.open).toBeGreaterThanOrEqual(SLOTS / 2);
    expect(receiver.slow.most).toBeLessThanOrEqual((SLOTS * 3) / 4);
    const p99 = [...delays].sort((a, b) => a - b)[Math.ceil(delays.length * 0.99) - 1];
    expect(p99).toBeLessThan(1000);
  }, 90_000);
});
