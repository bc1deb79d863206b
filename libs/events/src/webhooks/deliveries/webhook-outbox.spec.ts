import type { EntityManager } from '@mikro-orm/postgresql';
import { newId, sqlTextArray, type EventEnvelope } from '@mrp/platform';
import { silentLogger } from '@mrp/platform/testing';
import { createWebhookTestBed, type WebhookTestBed } from '@mrp/events/testing';
import { listenForRouteChanges } from '../../bus/route-change-listener';
import type { ChannelListener } from '@mrp/platform';
import { createEventDispatcher } from '../../bus/event-dispatcher';
import { InProcessEventBus } from '../../bus/in-process-event-bus';
import { createWebhookOutbox, deliveryBody, webhookDeliveryStatements, type MemberAccessSql, type ReaderAccess, type WebhookOutbox } from './webhook-outbox';
import { sequenceDeliveries } from './delivery-queue';

const recordCreated = (organizationId: string): EventEnvelope => ({
  id: newId(),
  type: 'data-models.record-created',
  occurredAt: new Date().toISOString(),
  organizationId,
  payload: { recordId: newId() },
});

/** No one is a member: a member-access relation with no rows. */
const noMembers = () => 'SELECT ARRAY[]::text[] AS role_ids, ARRAY[]::text[] AS permissions WHERE false';

/** A member-access relation over fixed members of any organization, in place of authz's. */
function membersOf(readers: ReadonlyMap<string, ReaderAccess>): MemberAccessSql {
  const literal = (values: readonly string[]) => `ARRAY[${values.map((value) => `'${value}'`).join(',')}]::text[]`;
  const rows = [...readers].map(([id, access]) => `('${id}', ${literal(access.roleIds)}, ${literal(access.permissions)})`).join(', ');
  return (_organizationId, userId) => `SELECT a.role_ids, a.permissions FROM (VALUES ${rows}) AS a(id, role_ids, permissions) WHERE a.id = ${userId}`;
}

/** Waits until `check` holds, as a change announced by another process reaches this one. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the webhook outbox with routes kept in memory', () => {
  let bed: WebhookTestBed;
  let outbox: WebhookOutbox;
  let listener: ChannelListener;
  let wakeUps = 0;
  const em = () => bed.db.orm.em.fork() as EntityManager;
  const deliveriesTo = async (endpointId: string) =>
    (await bed.sql<{ count: number }>('SELECT count(*)::int AS count FROM webhook_deliveries WHERE endpoint_id = ?', [endpointId]))[0].count;
  const bodiesTo = async (endpointId: string) =>
    (
      await bed.sql<{ body: string }>(
        'SELECT b.body FROM webhook_deliveries d JOIN webhook_event_bodies b ON b.event_id = d.event_id WHERE d.endpoint_id = ? ORDER BY d.event_id',
        [endpointId],
      )
    ).map((row) => row.body);
  const routedTo = async (organizationId: string) => (await outbox.routes.routesFor(em(), [organizationId])).map((endpoint) => endpoint.id);

  beforeAll(async () => {
    bed = await createWebhookTestBed([]);
    const jobs = bed.jobs;
    outbox = createWebhookOutbox(
      async () => new Map(),
      { enqueueAtCommit: (tx, queued) => jobs.enqueueAtCommit(tx, queued), announce: () => void wakeUps++ },
      webhookDeliveryStatements(noMembers),
      60,
    );
    listener = await listenForRouteChanges({ databaseUrl: bed.db.database.directUrl, logger: silentLogger, caches: [outbox.routes] });
  });
  afterAll(async () => {
    await listener.close();
    await bed.close();
  });

  it('sees an endpoint another process created once the change is announced, and queues its deliveries', async () => {
    const organization = await bed.organization();
    expect(await routedTo(organization)).toEqual([]);
    // Written as any other process would, past this process's procedures: only the trigger's announcement tells the cache.
    const endpoint = await bed.endpoint(organization);
    await eventually(async () => (await routedTo(organization)).includes(endpoint));
    const event = recordCreated(organization);
    await outbox.persist(em(), [event]);
    expect(await bodiesTo(endpoint)).toEqual([deliveryBody(event)]);
  });

  it('queues one delivery per event and enabled endpoint, each with the bytes it will send, however many at once', async () => {
    const organization = await bed.organization();
    const kept = await bed.endpoint(organization);
    const disabled = await bed.endpoint(organization);
    await eventually(async () => (await routedTo(organization)).filter((id) => id === kept || id === disabled).length === 2);
    await bed.sql(`UPDATE webhook_endpoints SET state = 'disabled', disabled_reason = 'test', disabled_at = now() WHERE id = ?`, [disabled]);
    const events = [recordCreated(organization), recordCreated(organization)].sort((a, b) => a.id.localeCompare(b.id));
    await outbox.persist(em(), events);
    expect(await bodiesTo(kept)).toEqual(events.map(deliveryBody));
    expect(await deliveriesTo(disabled)).toBe(0);
  });

  it('queues nothing for an endpoint disabled elsewhere, even before the change is heard', async () => {
    const organization = await bed.organization();
    const endpoint = await bed.endpoint(organization);
    await eventually(async () => (await routedTo(organization)).includes(endpoint));
    await bed.sql(`UPDATE webhook_endpoints SET state = 'disabled', disabled_reason = 'test', disabled_at = now() WHERE id = ?`, [endpoint]);
    await outbox.persist(em(), [recordCreated(organization)]);
    expect(await deliveriesTo(endpoint)).toBe(0);
    await eventually(async () => !(await routedTo(organization)).includes(endpoint));
  });

  it('forgets every organization when a platform-wide endpoint changes', async () => {
    const organization = await bed.organization();
    const before = await routedTo(organization);
    const platformEndpoint = await bed.endpoint(null);
    expect(before).not.toContain(platformEndpoint);
    await eventually(async () => (await routedTo(organization)).includes(platformEndpoint));
    await outbox.persist(em(), [recordCreated(organization)]);
    expect(await deliveriesTo(platformEndpoint)).toBe(1);
  });

  it('keeps a failure count change silent: it routes nothing differently', async () => {
    const channel = await bed.listenForRouteAnnouncement();
    const organization = await bed.organization();
    const endpoint = await bed.endpoint(organization);
    await channel.next();
    await bed.sql('UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = ?', [endpoint]);
    await bed.sql(`UPDATE webhook_endpoints SET subscriptions = '{data-models.*}' WHERE id = ?`, [endpoint]);
    expect(await channel.next()).toBe(organization);
    expect(channel.received()).toEqual([organization, organization]);
  });

  describe('waking the delivery workers', () => {
    const dispatcher = () => createEventDispatcher(new InProcessEventBus(silentLogger), [outbox]);

    it('asks once the transaction that queued deliveries committed, not while it is open', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      await eventually(async () => (await routedTo(organization)).includes(endpoint));
      const events = [recordCreated(organization), recordCreated(organization)];
      const before = wakeUps;
      await em().transactional(async (tx) => {
        await dispatcher().persist(tx, events);
        expect(wakeUps).toBe(before);
      });
      dispatcher().publish(events);
      expect(wakeUps).toBe(before + 1);
      expect(await deliveriesTo(endpoint)).toBe(2);
    });

    it('does not ask for a change that queued nothing, or one that rolled back', async () => {
      const before = wakeUps;
      // Delivery events are never routed (a platform-wide endpoint of an earlier test takes everything else).
      const unrouted = [{ ...recordCreated(await bed.organization()), type: 'webhook.endpoint-disabled-after-failures' }];
      await em().transactional((tx) => dispatcher().persist(tx, unrouted));
      dispatcher().publish(unrouted);
      expect(wakeUps).toBe(before);

      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      await eventually(async () => (await routedTo(organization)).includes(endpoint));
      const rolledBack = [recordCreated(organization)];
      await expect(
        em().transactional(async (tx) => {
          await dispatcher().persist(tx, rolledBack);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(wakeUps).toBe(before);
      expect(await deliveriesTo(endpoint)).toBe(0);
    });
  });

  it('queues without locking the endpoint: deleting it deletes its deliveries, and the numbering before a claim drops one queued after', async () => {
    const organization = await bed.organization();
    const endpoint = await bed.endpoint(organization);
    await eventually(async () => (await routedTo(organization)).includes(endpoint));
    await outbox.persist(em(), [recordCreated(organization)]);
    expect(await deliveriesTo(endpoint)).toBe(1);
    // A transaction that queued a delivery holds no lock the deletion waits for. (Queued in a
    // savepoint, the row is written at once; at the top level it would wait for COMMIT.)
    const queueing = em();
    await queueing.begin();
    await queueing.transactional((savepoint) => outbox.persist(savepoint, [recordCreated(organization)]));
    expect(await queueing.execute('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ?', [endpoint])).toEqual([{ n: 2 }]);
    await em().transactional(async (tx) => {
      await tx.execute(`SET LOCAL lock_timeout = '2s'`);
      await tx.execute('DELETE FROM webhook_endpoints WHERE id = ?', [endpoint]);
    });
    expect(await deliveriesTo(endpoint)).toBe(0);
    await queueing.commit();
    expect(await deliveriesTo(endpoint)).toBe(1);
    await sequenceDeliveries(em());
    const claimed = await bed.claimDue();
    expect(claimed.filter((delivery) => delivery.endpointId === endpoint)).toEqual([]);
    expect(await deliveriesTo(endpoint)).toBe(0);
  });

  it('sends the deliveries with COMMIT: none for an endpoint deleted before the queueing transaction commits', async () => {
    const organization = await bed.organization();
    const endpoint = await bed.endpoint(organization);
    await eventually(async () => (await routedTo(organization)).includes(endpoint));
    const queueing = em();
    await queueing.begin();
    await outbox.persist(queueing, [recordCreated(organization)]);
    expect(await queueing.execute('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ?', [endpoint])).toEqual([{ n: 0 }]);
    await em().transactional((tx) => tx.execute('DELETE FROM webhook_endpoints WHERE id = ?', [endpoint]));
    await queueing.commit();
    expect(await deliveriesTo(endpoint)).toBe(0);
    const other = await bed.endpoint(organization);
    await eventually(async () => (await routedTo(organization)).includes(other));
    await em().transactional((tx) => outbox.persist(tx, [recordCreated(organization)]));
    expect(await deliveriesTo(other)).toBe(1);
  });

  describe('record events', () => {
    const finance = newId();
    const restricted = (organizationId: string, roleIds: string[]): EventEnvelope => ({ ...recordCreated(organizationId), recordAccess: { roleIds } });
    const statusesTo = async (endpointId: string) =>
      (await bed.sql<{ status: string }>('SELECT status FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY event_id', [endpointId])).map((row) => row.status);

    it("are delivered as their endpoint's principal may read them, and filtered otherwise", async () => {
      const readers = new Map([
        ['reader', { roleIds: [], permissions: ['records.read'] }],
        ['finance-reader', { roleIds: [finance], permissions: ['records.read'] }],
        ['finance-no-read', { roleIds: [finance], permissions: [] }],
      ]);
      const reading = createWebhookOutbox(async () => new Map(), bed.jobs, webhookDeliveryStatements(membersOf(readers)), 60);
      const organization = await bed.organization();
      const endpoints: Record<string, string> = {};
      for (const principal of ['reader', 'finance-reader', 'finance-no-read', 'gone']) {
        endpoints[principal] = await bed.endpoint(organization);
        await bed.sql('UPDATE webhook_endpoints SET principal_id = ? WHERE id = ?', [principal, endpoints[principal]]);
      }
      const nobody = await bed.endpoint(organization);
      await bed.sql('UPDATE webhook_endpoints SET principal_id = NULL WHERE id = ?', [nobody]);
      const events = [restricted(organization, [finance]), restricted(organization, []), recordCreated(organization)].sort((a, b) => a.id.localeCompare(b.id));
      await reading.persist(em(), events);
      const expected = (may: (event: EventEnvelope) => boolean) => events.map((event) => (may(event) ? 'pending' : 'filtered'));
      const isRestricted = (event: EventEnvelope) => (event.recordAccess?.roleIds.length ?? 0) > 0;
      const isRecord = (event: EventEnvelope) => event.recordAccess !== undefined;
      expect(await statusesTo(endpoints['reader'])).toEqual(expected((event) => !isRestricted(event)));
      expect(await statusesTo(endpoints['finance-reader'])).toEqual(expected(() => true));
      expect(await statusesTo(endpoints['finance-no-read'])).toEqual(expected((event) => !isRecord(event)));
      expect(await statusesTo(endpoints['gone'])).toEqual(expected((event) => !isRecord(event)));
      expect(await statusesTo(nobody)).toEqual(expected((event) => !isRecord(event)));
      const [stored] = await bed.sql<{ body: string; record_access_role_ids: string[]; bodies: number }>(
        `SELECT b.body, d.record_access_role_ids::text[] AS record_access_role_ids,
                (SELECT count(*)::int FROM webhook_event_bodies WHERE event_id = ANY(?::uuid[])) AS bodies
           FROM webhook_deliveries d JOIN webhook_event_bodies b ON b.event_id = d.event_id WHERE d.endpoint_id = ? AND d.event_id = ?`,
        [sqlTextArray(events.map((event) => event.id)), endpoints['reader'], events.find(isRestricted)!.id],
      );
      expect(stored.record_access_role_ids).toEqual([finance]);
      // One body per event, however many endpoints: the one sent, which the filtered deliveries' readers strip.
      expect(stored.bodies).toBe(events.length);
      expect(JSON.parse(stored.body)).toHaveProperty('payload');
      expect(stored.body).not.toContain('recordAccess');

      // An event that no endpoint may read is stored without its payload.
      const unread = restricted(organization, [newId()]);
      await reading.persist(em(), [unread]);
      const [kept] = await bed.sql<{ body: string }>('SELECT body FROM webhook_event_bodies WHERE event_id = ?', [unread.id]);
      expect(JSON.parse(kept.body)).not.toHaveProperty('payload');
      expect(JSON.parse(kept.body)).toMatchObject({ id: unread.id, type: unread.type });
    });

    it('reach a platform-wide endpoint only when no role restricts the record', async () => {
      const organization = await bed.organization();
      const platform = await bed.endpoint(null);
      const events = [restricted(organization, [finance]), restricted(organization, [])].sort((a, b) => a.id.localeCompare(b.id));
      await outbox.persist(em(), events);
      expect(await statusesTo(platform)).toEqual(events.map((event) => (event.recordAccess?.roleIds.length ? 'filtered' : 'pending')));
    });
  });
});

describe('deliveryBody', () => {
  it("carries the door's mark of the change (metadata.via) when the event has one, and no metadata key otherwise", () => {
    const plain = recordCreated(newId());
    expect(Object.keys(JSON.parse(deliveryBody(plain)) as object)).not.toContain('metadata');
    const marked: EventEnvelope = { ...plain, metadata: { via: 'mcp' } };
    expect((JSON.parse(deliveryBody(marked)) as EventEnvelope).metadata).toEqual({ via: 'mcp' });
  });
});
