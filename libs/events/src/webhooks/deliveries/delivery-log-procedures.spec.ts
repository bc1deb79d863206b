import { createWebhookTestBed, type WebhookTestBed } from '@mrp/events/testing';
import { encodeDeliveryCursor } from './delivery-cursor';
import { createDeliveryLogProcedures } from './delivery-log-procedures';
import type { DeliveryAttemptView, DeliveryView } from './delivery-view';

interface Page {
  items: DeliveryView[];
  nextCursor: string | null;
}

interface DeliveryDetail extends DeliveryView {
  event: Record<string, unknown>;
  attempts: DeliveryAttemptView[];
}

interface StoredDelivery {
  status: string;
  attempt_count: number;
  attempts_left: number;
  locked_until: Date | null;
  completed_at: Date | null;
  idempotency_key: string;
}

const RETENTION_DAYS = 30;
const DAY = 24 * 3600 * 1000;

/** An instant `offsetSeconds` after `base`, as ISO 8601. */
const at = (base: number, offsetSeconds: number) => new Date(base + offsetSeconds * 1000).toISOString();

describe('webhook delivery log', () => {
  let bed: WebhookTestBed;
  beforeAll(async () => {
    bed = await createWebhookTestBed((jobs) => createDeliveryLogProcedures({ retentionDays: RETENTION_DAYS, jobs, jobExpirySeconds: 60 }));
  });
  afterAll(() => bed.close());

  const stored = async (id: string) =>
    (
      await bed.sql<StoredDelivery>(
        'SELECT status, attempt_count, attempts_left, locked_until, completed_at, idempotency_key FROM webhook_deliveries WHERE id = ?',
        [id],
      )
    )[0];

  describe('webhooks.deliveries.list', () => {
    it('pages through 60 deliveries newest first with no duplicates or gaps, where created_at ties and where it differs by a microsecond', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      const second = Math.floor((Date.now() - 3600_000) / 1000) * 1000;
      for (let index = 0; index < 60; index += 1) {
        // Four per second: two at .000100 (a tie), two at .000200 (the same millisecond: a Date could not tell them apart).
        const micros = index % 4 < 2 ? '000100' : '000200';
        const createdAt = `${new Date(second + Math.floor(index / 4) * 1000).toISOString().slice(0, 19)}.${micros}Z`;
        await bed.delivery({ endpointId: endpoint, createdAt });
      }
      const expected = (
        await bed.sql<{ id: string }>('SELECT id FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at DESC, id DESC', [endpoint])
      ).map((row) => row.id);

      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const page: Page = await bed.call('webhooks.deliveries.list', { endpointId: endpoint, cursor }, bed.manager(organization));
        seen.push(...page.items.map((item) => item.id));
        sizes.push(page.items.length);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(sizes).toEqual([25, 25, 10]);
      expect(seen).toEqual(expected);

      // The same pages across all the organization's endpoints (no endpointId).
      const first: Page = await bed.call('webhooks.deliveries.list', { limit: 60 }, bed.manager(organization));
      expect(first.items.map((item) => item.id)).toEqual(expected);
      expect(first.nextCursor).toBeNull();
    });

    describe('filters', () => {
      let organization: string;
      let one: string;
      let two: string;
      const ids: Record<string, string> = {};
      let base: number;

      beforeAll(async () => {
        organization = await bed.organization();
        one = await bed.endpoint(organization);
        two = await bed.endpoint(organization);
        base = Date.now() - DAY;
        const rows: Array<[string, string, 'pending' | 'succeeded' | 'failed', string, number]> = [
          ['d1', one, 'succeeded', 'data-models.record-created', 0],
          ['d2', one, 'failed', 'data-models.record-created', 10],
          ['d3', one, 'pending', 'organization.updated', 20],
          ['d4', two, 'failed', 'organization.updated', 30],
          ['d5', two, 'failed', 'data-models.record-created', 40],
          ['d6', one, 'failed', 'data-models.record-created', 50],
        ];
        for (const [name, endpointId, status, eventType, offset] of rows) {
          ids[name] = await bed.delivery({ endpointId, status, eventType, createdAt: at(base, offset) });
        }
      });

      const names = (page: Page) => page.items.map((item) => Object.keys(ids).find((name) => ids[name] === item.id));
      const list = (input: object) => bed.call<Page>('webhooks.deliveries.list', input, bed.manager(organization));

      it('by endpoint', async () => {
        expect(names(await list({ endpointId: one }))).toEqual(['d6', 'd3', 'd2', 'd1']);
        expect(names(await list({ endpointId: two }))).toEqual(['d5', 'd4']);
      });

      it('by status', async () => {
        expect(names(await list({ status: 'failed' }))).toEqual(['d6', 'd5', 'd4', 'd2']);
        expect(names(await list({ status: 'pending' }))).toEqual(['d3']);
        expect(names(await list({ status: 'succeeded' }))).toEqual(['d1']);
      });

      it('by event type', async () => {
        expect(names(await list({ eventType: 'organization.updated' }))).toEqual(['d4', 'd3']);
        expect(names(await list({ eventType: 'organization' }))).toEqual([]);
      });

      it('by time, since included and until excluded', async () => {
        expect(names(await list({ since: at(base, 10), until: at(base, 40) }))).toEqual(['d4', 'd3', 'd2']);
        expect(names(await list({ since: at(base, 41) }))).toEqual(['d6']);
        expect(names(await list({ until: at(base, 10) }))).toEqual(['d1']);
      });

      it('all at once', async () => {
        const input = { endpointId: one, status: 'failed', eventType: 'data-models.record-created', since: at(base, 10), until: at(base, 50) };
        expect(names(await list(input))).toEqual(['d2']);
        expect(names(await list({ ...input, until: at(base, 51) }))).toEqual(['d6', 'd2']);
        expect(names(await list({ endpointId: two, status: 'pending' }))).toEqual([]);
      });

      it('with pages over a filtered list', async () => {
        const first = await list({ status: 'failed', limit: 3 });
        expect(names(first)).toEqual(['d6', 'd5', 'd4']);
        const second = await list({ status: 'failed', limit: 3, cursor: first.nextCursor });
        expect(names(second)).toEqual(['d2']);
        expect(second.nextCursor).toBeNull();
      });
    });

    it('shows a delivery as DeliveryView: nextAttemptAt only while pending', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      const createdAt = new Date(Date.now() - 3600_000).toISOString();
      const nextAttemptAt = new Date(Date.now() + 60_000).toISOString();
      const pending = await bed.delivery({
        endpointId: endpoint,
        createdAt,
        attemptCount: 2,
        attemptsLeft: 3,
        nextAttemptAt,
        lastStatusCode: 503,
        lastError: 'HTTP 503',
      });
      const failed = await bed.delivery({ endpointId: endpoint, status: 'failed', createdAt: at(Date.parse(createdAt), -1), nextAttemptAt });
      const page = await bed.call<Page>('webhooks.deliveries.list', {}, bed.manager(organization));
      expect(page.items[0]).toEqual({
        id: pending,
        endpointId: endpoint,
        eventId: expect.any(String),
        eventType: 'data-models.record-created',
        idempotencyKey: `idem-${pending}`,
        // Not numbered yet: no worker ran.
        sequence: null,
        status: 'pending',
        attemptCount: 2,
        attemptsLeft: 3,
        nextAttemptAt,
        lastStatusCode: 503,
        lastError: 'HTTP 503',
        createdAt,
        updatedAt: createdAt,
        completedAt: null,
      });
      expect(page.items[1]).toMatchObject({ id: failed, status: 'failed', nextAttemptAt: null, completedAt: at(Date.parse(createdAt), -1) });
    });

    it('rejects a malformed cursor on field cursor, and a window that ends before it starts (400)', async () => {
      const organization = await bed.organization();
      const list = (input: object) => bed.call('webhooks.deliveries.list', input, bed.manager(organization));
      const id = '0192f2a4-0000-7000-8000-000000000000';
      const malformed = [
        'garbage!',
        Buffer.from('not json').toString('base64url'),
        Buffer.from(JSON.stringify({ createdAt: '2026-11-01T00:00:00.000000Z', id })).toString('base64url'),
        encodeDeliveryCursor({ createdAt: '2026-02-31T00:00:00.000000Z', id }),
        encodeDeliveryCursor({ createdAt: '0000-01-01T00:00:00.000000Z', id }),
        encodeDeliveryCursor({ createdAt: '2026-11-01 00:00:00+00', id }),
        encodeDeliveryCursor({ createdAt: '2026-11-01T00:00:00.000000Z', id: 'x' }),
      ];
      for (const cursor of malformed) {
        await expect(list({ cursor })).rejects.toMatchObject({
          code: 'validation_failed',
          details: [{ field: 'cursor', code: 'invalid_format', message: 'is not a cursor from a previous page' }],
        });
      }
      await expect(list({ since: '2026-11-02T00:00:00Z', until: '2026-11-01T00:00:00Z' })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'until' })],
      });
      await expect(list({ since: 'yesterday' })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'since', code: 'invalid_format' })],
      });
      await expect(list({ limit: 101 })).rejects.toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'limit' })] });
      await expect(list({ status: 'lost' })).rejects.toMatchObject({ code: 'validation_failed' });
    });
  });

  describe('webhooks.deliveries.get', () => {
    it('returns the view, the event exactly as sent and every attempt, oldest first', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      const id = await bed.delivery({ endpointId: endpoint, status: 'succeeded', attemptCount: 2, attemptsLeft: 3 });
      const base = Date.now() - 600_000;
      // Inserted newest first: the order returned is the procedure's.
      await bed.attempt(id, {
        attempt: 2,
        startedAt: at(base, 60),
        durationMs: 85,
        statusCode: 200,
        responseHeaders: { 'content-type': 'text/plain' },
        responseBody: 'ok',
      });
      await bed.attempt(id, { attempt: 1, startedAt: at(base, 0), durationMs: 10_000, error: 'timed out after 10 s' });

      const detail = await bed.call<DeliveryDetail>('webhooks.deliveries.get', { id }, bed.manager(organization));
      const [{ body }] = await bed.sql<{ body: string }>(
        'SELECT b.body FROM webhook_deliveries d JOIN webhook_event_bodies b ON b.event_id = d.event_id WHERE d.id = ?',
        [id],
      );
      expect(detail).toMatchObject({ id, endpointId: endpoint, status: 'succeeded', attemptCount: 2 });
      expect(detail.event).toEqual(JSON.parse(body));
      expect(detail.event).toMatchObject({ id: detail.eventId, type: 'data-models.record-created' });
      expect(detail.attempts).toEqual([
        { attempt: 1, startedAt: at(base, 0), durationMs: 10_000, statusCode: null, error: 'timed out after 10 s', responseHeaders: null, responseBody: null },
        { attempt: 2, startedAt: at(base, 60), durationMs: 85, statusCode: 200, error: null, responseHeaders: { 'content-type': 'text/plain' }, responseBody: 'ok' },
      ]);
    });

    it('answers 404 for an unknown id', async () => {
      const organization = await bed.organization();
      await expect(
        bed.call('webhooks.deliveries.get', { id: '0192f2a4-0000-7000-8000-000000000000' }, bed.manager(organization)),
      ).rejects.toMatchObject({ code: 'not_found', message: 'Webhook delivery not found' });
    });
  });

  describe('webhooks.deliveries.redeliver', () => {
    it('queues the delivery again with the same idempotency key and a fresh round of 5 attempts, and wakes the workers', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      const id = await bed.delivery({ endpointId: endpoint, status: 'failed', attemptCount: 5, attemptsLeft: 0, lastStatusCode: 500, lastError: 'HTTP 500' });
      const before = await stored(id);
      const { woken } = await bed.listenForWakeUp();

      const view = await bed.call<DeliveryView>('webhooks.deliveries.redeliver', { id }, bed.manager(organization));
      // Its job's queue, woken at commit; the job sends it.
      await expect(woken).resolves.toMatch(/^webhook\.deliver\.\d+$/);
      expect(view).toMatchObject({ id, status: 'pending', attemptCount: 5, attemptsLeft: 5, completedAt: null, idempotencyKey: before.idempotency_key });
      // Due at once: the same instant as the change (both now() of its transaction).
      expect(view.nextAttemptAt).toBe(view.updatedAt);
      expect(await stored(id)).toEqual({ ...before, status: 'pending', attempts_left: 5, completed_at: null });
      expect((await bed.claimDue()).map((delivery) => delivery.id)).toContain(id);
    });

    it('takes over a delivery whose worker lease ran out', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      const id = await bed.delivery({ endpointId: endpoint, attemptCount: 1, attemptsLeft: 4, lockedUntil: new Date(Date.now() - 60_000).toISOString() });
      await expect(bed.call('webhooks.deliveries.redeliver', { id }, bed.manager(organization))).resolves.toMatchObject({ status: 'pending', attemptsLeft: 5 });
      expect((await stored(id)).locked_until).toBeNull();
    });

    it('is a 409 while a worker holds the delivery, and changes nothing', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      const id = await bed.delivery({ endpointId: endpoint, attemptCount: 1, attemptsLeft: 4, lockedUntil: new Date(Date.now() + 600_000).toISOString() });
      const before = await stored(id);
      await expect(bed.call('webhooks.deliveries.redeliver', { id }, bed.manager(organization))).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringContaining('sending this delivery right now'),
      });
      expect(await stored(id)).toEqual(before);
    });

    it('is a 409 while the endpoint is disabled (nothing would be sent)', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization, { state: 'disabled' });
      const id = await bed.delivery({ endpointId: endpoint, status: 'failed' });
      await expect(bed.call('webhooks.deliveries.redeliver', { id }, bed.manager(organization))).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringContaining('enable it'),
      });
      expect((await stored(id)).status).toBe('failed');
    });
  });

  describe('webhooks.endpoints.recover', () => {
    it('re-queues exactly the failed deliveries of the endpoint created in [since, until), and wakes the workers', async () => {
      // Jobs of earlier tests' deliveries are not this test's.
      await bed.claimDue();
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      const other = await bed.endpoint(organization);
      const base = Date.now() - 2 * DAY;
      const failed = (offset: number, endpointId = endpoint) =>
        bed.delivery({ endpointId, status: 'failed', attemptCount: 5, attemptsLeft: 0, createdAt: at(base, offset), lastError: 'HTTP 500' });
      const inWindow = [await failed(0), await failed(30), await failed(59)];
      const untouched = [
        await failed(-1),
        await failed(60),
        await failed(30, other),
        await bed.delivery({ endpointId: endpoint, status: 'succeeded', createdAt: at(base, 10) }),
        await bed.delivery({ endpointId: endpoint, status: 'pending', attemptCount: 1, attemptsLeft: 4, createdAt: at(base, 20) }),
      ];
      const before = await Promise.all(untouched.map(stored));
      const { woken } = await bed.listenForWakeUp();

      await expect(
        bed.call('webhooks.endpoints.recover', { id: endpoint, since: at(base, 0), until: at(base, 60) }, bed.manager(organization)),
      ).resolves.toEqual({ requeued: 3 });
      await expect(woken).resolves.toMatch(/^webhook\.deliver\.\d+$/);
      for (const id of inWindow) {
        expect(await stored(id)).toMatchObject({ status: 'pending', attempts_left: 5, attempt_count: 5, completed_at: null });
      }
      expect(await Promise.all(untouched.map(stored))).toEqual(before);

      // Without until, the window runs to now; what was re-queued is pending now and not counted again.
      await expect(bed.call('webhooks.endpoints.recover', { id: endpoint, since: at(base, -10) }, bed.manager(organization))).resolves.toEqual({
        requeued: 2,
      });
      await expect(bed.call('webhooks.endpoints.recover', { id: endpoint, since: at(base, -10) }, bed.manager(organization))).resolves.toEqual({
        requeued: 0,
      });
      // Each re-queued delivery has its job: a worker sends the five of them.
      // (And the one that was pending all along.)
      expect((await bed.claimDue()).map((delivery) => delivery.id).sort()).toEqual([...inWindow, untouched[0], untouched[1], untouched[4]].sort());
    });

    it('refuses a window that ends before it starts or reaches past the retention period (400)', async () => {
      const organization = await bed.organization();
      const endpoint = await bed.endpoint(organization);
      const recover = (input: object) => bed.call('webhooks.endpoints.recover', { id: endpoint, ...input }, bed.manager(organization));
      const now = Date.now();
      await expect(recover({ since: at(now, -60), until: at(now, -120) })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'until' })],
      });
      await expect(recover({ since: new Date(now - (RETENTION_DAYS + 1) * DAY).toISOString() })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'since', code: 'out_of_range', message: `must be within the last ${RETENTION_DAYS} days: older deliveries are not kept` }],
      });
      await expect(recover({})).rejects.toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'since', code: 'required' })] });
      await expect(recover({ since: new Date(now - (RETENTION_DAYS - 1) * DAY).toISOString() })).resolves.toEqual({ requeued: 0 });
    });

    it('is a 409 on a disabled endpoint, and a 404 on an unknown one', async () => {
      const organization = await bed.organization();
      const disabled = await bed.endpoint(organization, { state: 'disabled' });
      const id = await bed.delivery({ endpointId: disabled, status: 'failed', createdAt: new Date(Date.now() - 60_000).toISOString() });
      const since = new Date(Date.now() - DAY).toISOString();
      await expect(bed.call('webhooks.endpoints.recover', { id: disabled, since }, bed.manager(organization))).rejects.toMatchObject({ code: 'conflict' });
      expect((await stored(id)).status).toBe('failed');
      await expect(
        bed.call('webhooks.endpoints.recover', { id: '0192f2a4-0000-7000-8000-000000000000', since }, bed.manager(organization)),
      ).rejects.toMatchObject({ code: 'not_found', message: 'Webhook endpoint not found' });
    });
  });

  describe('access', () => {
    let organizationA: string;
    let organizationB: string;
    let endpointA: string;
    let endpointB: string;
    let platformEndpoint: string;
    let deliveryA: string;
    let deliveryB: string;
    let platformDelivery: string;
    const since = () => new Date(Date.now() - DAY).toISOString();
    const unknownId = '0192f2a4-0000-7000-8000-00000000abcd';

    beforeAll(async () => {
      organizationA = await bed.organization();
      organizationB = await bed.organization();
      endpointA = await bed.endpoint(organizationA);
      endpointB = await bed.endpoint(organizationB);
      platformEndpoint = await bed.endpoint(null);
      deliveryA = await bed.delivery({ endpointId: endpointA, status: 'failed' });
      deliveryB = await bed.delivery({ endpointId: endpointB, status: 'failed' });
      platformDelivery = await bed.delivery({ endpointId: platformEndpoint, status: 'failed' });
    });

    it("shows an organization only its own endpoints' deliveries, and the platform's only to platform admins", async () => {
      const listed = async (input: object, principal = bed.manager(organizationA)) =>
        (await bed.call<Page>('webhooks.deliveries.list', input, principal)).items.map((item) => item.id);
      expect(await listed({})).toEqual([deliveryA]);
      expect(await listed({}, bed.manager(organizationB))).toEqual([deliveryB]);
      expect(await listed({ platform: true }, bed.platformAdmin())).toContain(platformDelivery);
      const platformIds = await listed({ platform: true, limit: 100 }, bed.platformAdmin());
      expect(platformIds).not.toContain(deliveryA);
      expect(platformIds).not.toContain(deliveryB);
    });

    it("answers 404 for another owner's delivery or endpoint, exactly as for a missing one", async () => {
      const manager = bed.manager(organizationA);
      const attempts: Array<[string, object, string]> = [
        ['webhooks.deliveries.get', { id: deliveryB }, 'Webhook delivery not found'],
        ['webhooks.deliveries.get', { id: platformDelivery }, 'Webhook delivery not found'],
        ['webhooks.deliveries.get', { id: unknownId }, 'Webhook delivery not found'],
        ['webhooks.deliveries.redeliver', { id: deliveryB }, 'Webhook delivery not found'],
        ['webhooks.deliveries.redeliver', { id: platformDelivery }, 'Webhook delivery not found'],
        ['webhooks.deliveries.redeliver', { id: unknownId }, 'Webhook delivery not found'],
        ['webhooks.deliveries.list', { endpointId: endpointB }, 'Webhook endpoint not found'],
        ['webhooks.deliveries.list', { endpointId: platformEndpoint }, 'Webhook endpoint not found'],
        ['webhooks.deliveries.list', { endpointId: unknownId }, 'Webhook endpoint not found'],
        ['webhooks.endpoints.recover', { id: endpointB, since: since() }, 'Webhook endpoint not found'],
        ['webhooks.endpoints.recover', { id: platformEndpoint, since: since() }, 'Webhook endpoint not found'],
        ['webhooks.endpoints.recover', { id: unknownId, since: since() }, 'Webhook endpoint not found'],
      ];
      for (const [name, input, message] of attempts) {
        await expect(bed.call(name, input, manager)).rejects.toMatchObject({ code: 'not_found', message });
      }
      // A platform admin acting on the platform's endpoints does not see an organization's either.
      await expect(bed.call('webhooks.deliveries.get', { platform: true, id: deliveryA }, bed.platformAdmin())).rejects.toMatchObject({
        code: 'not_found',
      });
      expect((await stored(deliveryB)).status).toBe('failed');
      expect((await stored(platformDelivery)).status).toBe('failed');
    });

    it('is a 403 without webhooks.manage, and for platform-wide deliveries without being a platform admin', async () => {
      const calls: Array<[string, object]> = [
        ['webhooks.deliveries.list', {}],
        ['webhooks.deliveries.get', { id: deliveryA }],
        ['webhooks.deliveries.redeliver', { id: deliveryA }],
        ['webhooks.endpoints.recover', { id: endpointA, since: since() }],
      ];
      for (const [name, input] of calls) {
        await expect(bed.call(name, input, bed.member(organizationA))).rejects.toMatchObject({
          code: 'forbidden',
          message: 'Missing permission webhooks.manage',
        });
        await expect(bed.call(name, { ...input, platform: true }, bed.manager(organizationA))).rejects.toMatchObject({ code: 'forbidden' });
      }
      expect((await stored(deliveryA)).status).toBe('failed');
    });

    it('lets a platform admin manage the platform-wide log', async () => {
      const admin = bed.platformAdmin();
      await expect(bed.call('webhooks.deliveries.get', { platform: true, id: platformDelivery }, admin)).resolves.toMatchObject({ id: platformDelivery });
      await expect(bed.call('webhooks.deliveries.redeliver', { platform: true, id: platformDelivery }, admin)).resolves.toMatchObject({
        status: 'pending',
      });
    });
  });
});
