import { newId, sqlTextArray, systemPrincipal } from '@mrp/platform';
import { createWebhookTestBed, type WebhookTestBed } from '@mrp/events/testing';
import { PRUNE_WEBHOOK_DELIVERIES, pruneWebhookDeliveries } from './prune-deliveries';

const DAY = 24 * 3600 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();

describe('webhooks.deliveries.prune', () => {
  let bed: WebhookTestBed;
  beforeAll(async () => {
    bed = await createWebhookTestBed([pruneWebhookDeliveries]);
  });
  afterAll(() => bed.close());

  const task = systemPrincipal('prune-webhook-deliveries', { permissions: [PRUNE_WEBHOOK_DELIVERIES] });
  const prune = (input: object) => bed.call<{ processed: number }>('webhooks.deliveries.prune', input, task);
  const remaining = async () => (await bed.sql<{ id: string }>('SELECT id FROM webhook_deliveries ORDER BY id')).map((row) => row.id);
  const attemptsOf = async () => (await bed.sql<{ delivery_id: string }>('SELECT DISTINCT delivery_id FROM webhook_delivery_attempts ORDER BY delivery_id')).map((row) => row.delivery_id);

  it('deletes settled deliveries older than the retention, with their attempts, in batches; keeps pending and recent ones', async () => {
    const organization = await bed.organization();
    const endpoint = await bed.endpoint(organization);
    const platformEndpoint = await bed.endpoint(null);
    for (const [status, days, endpointId] of [
      ['succeeded', 31, endpoint],
      ['failed', 31, endpoint],
      ['succeeded', 45, platformEndpoint],
      ['failed', 90, endpoint],
      ['succeeded', 400, endpoint],
    ] as const) {
      const id = await bed.delivery({ endpointId, status, createdAt: daysAgo(days) });
      await bed.attempt(id, { attempt: 1, startedAt: daysAgo(days), statusCode: status === 'succeeded' ? 200 : 500 });
    }
    const kept = [
      await bed.delivery({ endpointId: endpoint, status: 'pending', attemptCount: 1, attemptsLeft: 4, createdAt: daysAgo(60) }),
      await bed.delivery({ endpointId: endpoint, status: 'succeeded', createdAt: daysAgo(29) }),
      await bed.delivery({ endpointId: endpoint, status: 'failed', createdAt: daysAgo(0.5) }),
    ];
    await bed.attempt(kept[0], { attempt: 1, startedAt: daysAgo(60), statusCode: 503 });
    await bed.attempt(kept[2], { attempt: 1, startedAt: daysAgo(0.5), statusCode: 500 });

    // Batches of 2: three statements for five rows, the last one short.
    await expect(prune({ retentionDays: 30, batchSize: 2 })).resolves.toEqual({ processed: 5 });
    expect(await remaining()).toEqual([...kept].sort());
    expect(await attemptsOf()).toEqual([kept[0], kept[2]].sort());
    await expect(prune({ retentionDays: 30 })).resolves.toEqual({ processed: 0 });

    // A shorter retention reaches the recent settled ones; pending ones are never pruned.
    await expect(prune({ retentionDays: 1, batchSize: 1 })).resolves.toEqual({ processed: 1 });
    expect(await remaining()).toEqual([kept[0], kept[2]].sort());
  });

  it('drops an event body with the last delivery that carries it, and bodies no delivery carries', async () => {
    const organization = await bed.organization();
    const [one, two] = [await bed.endpoint(organization), await bed.endpoint(organization)];
    const bodies = async (eventIds: string[]) =>
      (await bed.sql<{ event_id: string }>('SELECT event_id FROM webhook_event_bodies WHERE event_id = ANY(?::uuid[]) ORDER BY event_id', [sqlTextArray(eventIds)])).map(
        (row) => row.event_id,
      );
    const eventOf = async (deliveryId: string) => (await bed.sql<{ event_id: string }>('SELECT event_id FROM webhook_deliveries WHERE id = ?', [deliveryId]))[0].event_id;
    // Both deliveries of an event are old and settled; of another, one is recent.
    const gone = await eventOf(await bed.delivery({ endpointId: one, status: 'succeeded', createdAt: daysAgo(40) }));
    await bed.delivery({ endpointId: two, status: 'failed', createdAt: daysAgo(40), eventId: gone });
    const shared = await eventOf(await bed.delivery({ endpointId: one, status: 'succeeded', createdAt: daysAgo(40) }));
    await bed.delivery({ endpointId: two, status: 'succeeded', createdAt: daysAgo(2), eventId: shared });
    // A body whose deliveries went with their endpoint, of an event older than the retention (ids are UUIDv7).
    const oldMs = (Date.now() - 40 * DAY).toString(16).padStart(12, '0');
    const orphan = `${oldMs.slice(0, 8)}-${oldMs.slice(8)}-7000-8000-000000000001`;
    const recentOrphan = newId();
    await bed.sql("INSERT INTO webhook_event_bodies (event_id, body) VALUES (?, '{}'), (?, '{}')", [orphan, recentOrphan]);

    await expect(prune({ retentionDays: 30, batchSize: 1 })).resolves.toEqual({ processed: 3 });
    expect(await bodies([gone, shared, orphan, recentOrphan])).toEqual([shared, recentOrphan].sort());
  });

  it('exists only for system principals, and runs only for the one holding its permission', async () => {
    const organization = await bed.organization();
    await expect(bed.call('webhooks.deliveries.prune', { retentionDays: 30 }, bed.manager(organization))).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(bed.call('webhooks.deliveries.prune', { retentionDays: 30 }, bed.platformAdmin())).rejects.toMatchObject({ code: 'not_found' });
    await expect(bed.call('webhooks.deliveries.prune', { retentionDays: 30 }, systemPrincipal('webhook-delivery'))).rejects.toMatchObject({
      code: 'forbidden',
      message: `Missing permission ${PRUNE_WEBHOOK_DELIVERIES}`,
    });
  });

  it('refuses a retention that is not a positive number of days', async () => {
    await expect(prune({ retentionDays: 0 })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(prune({ retentionDays: 1.5 })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(prune({})).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
