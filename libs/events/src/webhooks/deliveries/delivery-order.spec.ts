import type { EntityManager } from '@mikro-orm/postgresql';
import { newId, systemPrincipal } from '@mrp/platform';
import { createWebhookTestBed, type WebhookTestBed } from '@mrp/events/testing';
import { sequenceDeliveries } from './delivery-queue';
import { WEBHOOK_DELIVERY_PERMISSION, createRecordAttemptsProcedure, type AttemptResult } from './record-attempts';

describe('delivery numbering and per-record order', () => {
  let bed: WebhookTestBed;
  const worker = systemPrincipal('webhook-delivery', { permissions: [WEBHOOK_DELIVERY_PERMISSION] });
  const em = () => bed.db.orm.em.fork() as EntityManager;

  beforeAll(async () => {
    // Retries come due in about a second, for the test to wait for one.
    bed = await createWebhookTestBed((jobs) => [
      createRecordAttemptsProcedure({ retryBaseSeconds: 1, notifyOperators: async () => undefined, jobs, jobExpirySeconds: 60 }),
    ]);
  });
  afterAll(() => bed.close());

  const sequencesOf = async (endpointId: string) =>
    (await bed.sql<{ id: string; sequence: string | null }>('SELECT id, sequence FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY queue_position', [endpointId])).map(
      (row) => [row.id, row.sequence === null ? null : Number(row.sequence)],
    );
  const claim = async (endpointId: string) => (await bed.claimDue()).filter((delivery) => delivery.endpointId === endpointId);
  const outcome = (deliveryId: string, attempt: number, result: 'succeeded' | 'failed'): AttemptResult => ({
    deliveryId,
    attempt,
    startedAt: new Date().toISOString(),
    durationMs: 5,
    outcome: result,
    statusCode: result === 'succeeded' ? 204 : 500,
    error: result === 'succeeded' ? null : 'HTTP 500',
    responseHeaders: {},
    responseBody: '',
    retryAfterSeconds: null,
  });
  const record = (results: AttemptResult[]) => bed.call('webhooks.deliveries.recordAttempts', { attempts: results }, worker);

  it('numbers each endpoint’s deliveries 1, 2, 3… in the order they were queued, once, however many numberings run at once', async () => {
    const organization = await bed.organization();
    const [one, two] = [await bed.endpoint(organization), await bed.endpoint(organization)];
    const queued = [];
    for (let index = 0; index < 5; index += 1) queued.push(await bed.delivery({ endpointId: index % 2 === 0 ? one : two }));
    expect((await sequencesOf(one)).map(([, sequence]) => sequence)).toEqual([null, null, null]);

    // Many numberings at once: each delivery is numbered by one of them, without gaps.
    await Promise.all(Array.from({ length: 6 }, () => sequenceDeliveries(em())));
    expect(await sequencesOf(one)).toEqual([
      [queued[0], 1],
      [queued[2], 2],
      [queued[4], 3],
    ]);
    expect(await sequencesOf(two)).toEqual([
      [queued[1], 1],
      [queued[3], 2],
    ]);
    const later = await bed.delivery({ endpointId: two });
    await expect(sequenceDeliveries(em(), [one])).resolves.toBe(0);
    await expect(sequenceDeliveries(em(), [two])).resolves.toBe(1);
    expect((await sequencesOf(two)).at(-1)).toEqual([later, 3]);
  });

  it('drops, instead of numbering, a delivery queued by a change that committed after its endpoint was deleted', async () => {
    const organization = await bed.organization();
    const kept = await bed.delivery({ endpointId: await bed.endpoint(organization) });
    const orphan = newId();
    await bed.sql(
      `INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, idempotency_key)
       VALUES (?, ?, ?, ?, 'data-models.record-created', ?)`,
      [orphan, newId(), organization, newId(), `idem-${orphan}`],
    );
    await sequenceDeliveries(em());
    const rows = await bed.sql<{ id: string; sequence: string | null }>('SELECT id, sequence FROM webhook_deliveries WHERE id IN (?, ?)', [kept, orphan]);
    expect(rows).toEqual([{ id: kept, sequence: expect.any(String) }]);
  });

  it('sends the deliveries about one record one at a time, each after the one before settles for good, other records not held', async () => {
    const organization = await bed.organization();
    const endpoint = await bed.endpoint(organization);
    const [recordA, recordB] = [newId(), newId()];
    const a1 = await bed.delivery({ endpointId: endpoint });
    const b1 = await bed.delivery({ endpointId: endpoint });
    const a2 = await bed.delivery({ endpointId: endpoint });
    const a3 = await bed.delivery({ endpointId: endpoint });
    const loose = await bed.delivery({ endpointId: endpoint });
    await bed.sql('UPDATE webhook_deliveries SET ordering_key = ? WHERE id IN (?, ?, ?)', [recordA, a1, a2, a3]);
    await bed.sql('UPDATE webhook_deliveries SET ordering_key = ? WHERE id = ?', [recordB, b1]);

    // Their jobs number them first; a2 and a3 wait behind a1, and their jobs end with nothing to send.
    const first = await claim(endpoint);
    expect(first.map((delivery) => delivery.id).sort()).toEqual([a1, b1, loose].sort());
    expect(first.find((delivery) => delivery.id === a1)).toMatchObject({ sequence: 1, orderingKey: recordA });

    // a1 fails and waits for its retry: a2 and a3 wait behind it; b1 succeeds.
    await record([outcome(a1, 1, 'failed'), outcome(b1, 1, 'succeeded'), outcome(loose, 1, 'succeeded')]);
    expect(await claim(endpoint)).toEqual([]);
    // Its retry's job comes due with it, about a second later.
    const [{ due_in }] = await bed.sql<{ due_in: number }>('SELECT extract(epoch FROM next_attempt_at - now())::float8 AS due_in FROM webhook_deliveries WHERE id = ?', [a1]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due_in * 1000) + 100));
    expect((await claim(endpoint)).map((delivery) => delivery.id)).toEqual([a1]);
    // Settling a1 gives a2 a job of its own.
    await record([outcome(a1, 2, 'succeeded')]);
    expect((await claim(endpoint)).map((delivery) => delivery.id)).toEqual([a2]);

    // Failing for good frees the next one too.
    await bed.sql('UPDATE webhook_deliveries SET attempts_left = 1 WHERE id = ?', [a2]);
    await record([outcome(a2, 1, 'failed')]);
    expect((await claim(endpoint)).map((delivery) => ({ id: delivery.id, sequence: delivery.sequence }))).toEqual([{ id: a3, sequence: 4 }]);
  });
});
