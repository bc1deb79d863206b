import type { EntityManager } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import {
  JOBS_DUE_CHANNEL,
  createJobQueue,
  invokeProcedure,
  newId,
  noopEventDispatcher,
  platformModule,
  ProcedureRegistry,
  type AnyProcedure,
  type JobQueue,
  type Principal,
} from '@mrp/platform';
import { createTestOrm, flagsAllOff, silentLogger, testPrincipal, type TestOrm } from '@mrp/platform/testing';
import { eventsModule } from '../src/events-module';
import {
  DELIVERY_QUEUES,
  claimDeliveries,
  deliveryJob,
  sequenceDeliveries,
  type ClaimedDelivery,
  type DeliveryJobData,
} from '../src/webhooks/deliveries/delivery-queue';
import { ROUTES_CHANGED_CHANNEL } from '../src/bus/route-cache';

export interface DeliveryFixture {
  endpointId: string;
  status?: 'pending' | 'succeeded' | 'failed';
  eventType?: string;
  /** Another delivery's event (its body is stored once); a new event by default. */
  eventId?: string;
  /** ISO 8601; microseconds allowed. Default now. */
  createdAt?: string;
  attemptCount?: number;
  attemptsLeft?: number;
  nextAttemptAt?: string;
  lockedUntil?: string | null;
  lastStatusCode?: number | null;
  lastError?: string | null;
  completedAt?: string | null;
}

export interface AttemptFixture {
  attempt: number;
  startedAt: string;
  durationMs?: number;
  statusCode?: number | null;
  error?: string | null;
  responseHeaders?: Record<string, string> | null;
  responseBody?: string | null;
}

/**
 * A migrated database with the webhook tables, rows made with plain SQL (events may not use authz's
 * procedures), and the procedures called through `invokeProcedure` as the doors call them.
 */
export interface WebhookTestBed {
  db: TestOrm;
  /** The job queue on the bed's database (nothing started: tests fetch its jobs themselves). */
  jobs: JobQueue;
  /**
   * What a worker would send now: fetches the due jobs of every delivery queue, claims their
   * deliveries for `leaseSeconds` and completes the jobs, as a worker does once it has recorded.
   */
  claimDue(leaseSeconds?: number): Promise<ClaimedDelivery[]>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  call<T>(name: string, input: unknown, principal: Principal): Promise<T>;
  organization(): Promise<string>;
  endpoint(organizationId: string | null, options?: { state?: 'enabled' | 'disabled' }): Promise<string>;
  delivery(fixture: DeliveryFixture): Promise<string>;
  attempt(deliveryId: string, fixture: AttemptFixture): Promise<void>;
  /** A member of the organization holding `webhooks.manage`. */
  manager(organizationId: string): Principal;
  /** A member of the organization without it. */
  member(organizationId: string): Principal;
  platformAdmin(): Principal;
  /** Listens for the job queue's wake-up; `woken` resolves with the next one's queues. Start before the work. */
  listenForWakeUp(): Promise<{ woken: Promise<string> }>;
  /** Listens for route-change announcements: `next` resolves with the next payload; `received` lists them all. */
  listenForRouteAnnouncement(): Promise<{ next(): Promise<string>; received(): string[] }>;
  close(): Promise<void>;
}

/** Jobs expire this long after they start, in the bed. */
export const TEST_JOB_EXPIRY_SECONDS = 60;

export async function createWebhookTestBed(
  procedures: readonly AnyProcedure[] | ((jobs: JobQueue) => readonly AnyProcedure[]),
): Promise<WebhookTestBed> {
  const db = await createTestOrm([platformModule, eventsModule]);
  const jobs = createJobQueue({ orm: db.orm, listenUrl: db.database.directUrl, logger: silentLogger });
  const registry = new ProcedureRegistry(typeof procedures === 'function' ? procedures(jobs) : procedures);
  const listeners: Client[] = [];
  const em = () => db.orm.em.fork() as EntityManager;
  const sql = <T>(text: string, params: unknown[] = []) => em().execute<T[]>(text, params);

  return {
    db,
    jobs,
    async claimDue(leaseSeconds = 30) {
      const claimed: ClaimedDelivery[] = [];
      for (const queue of DELIVERY_QUEUES) {
        const fetched = await jobs.fetch<DeliveryJobData>(queue, 1000);
        if (fetched.length === 0) continue;
        await sequenceDeliveries(em());
        claimed.push(...(await claimDeliveries(em(), [...new Set(fetched.map((job) => job.data.deliveryId))], leaseSeconds)).claimed);
        await jobs.complete(queue, fetched.map((job) => job.id));
      }
      return claimed;
    },
    sql,
    call: (name, input, principal) =>
      invokeProcedure(registry.require(name), input, { em: em(), principal, correlationId: newId() }, {
        dispatcher: noopEventDispatcher,
        logger: silentLogger,
        flags: flagsAllOff,
      }),
    async organization() {
      // Organizations are authz's; webhook tables only carry their ids.
      return newId();
    },
    async endpoint(organizationId, { state = 'enabled' } = {}) {
      const id = newId();
      await sql(
        `INSERT INTO webhook_endpoints (id, organization_id, url, subscriptions, secret_hash, state, disabled_reason, disabled_at, created_by)
         VALUES (?, ?::uuid, ?, '{*}', 'hash', ?, ?, ?::timestamptz, 'fixture')`,
        [id, organizationId, `https://receiver.example.com/${id}`, state, state === 'disabled' ? 'test' : null, state === 'disabled' ? new Date().toISOString() : null],
      );
      return id;
    },
    async delivery(fixture) {
      const id = newId();
      const eventId = fixture.eventId ?? newId();
      const eventType = fixture.eventType ?? 'data-models.record-created';
      const status = fixture.status ?? 'pending';
      const body = JSON.stringify({ id: eventId, type: eventType, occurredAt: fixture.createdAt ?? new Date().toISOString(), payload: { fixture: id } });
      await sql('INSERT INTO webhook_event_bodies (event_id, body) VALUES (?::uuid, ?) ON CONFLICT (event_id) DO NOTHING', [eventId, body]);
      await sql(
        `INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, idempotency_key, status,
            attempt_count, attempts_left, next_attempt_at, locked_until, last_status_code, last_error, created_at, updated_at, completed_at)
         SELECT ?::uuid, e.id, e.organization_id, ?::uuid, ?, ?, ?, ?, ?, coalesce(?::timestamptz, now()), ?::timestamptz, ?, ?,
                coalesce(?::timestamptz, now()), coalesce(?::timestamptz, now()), ?::timestamptz
           FROM webhook_endpoints e WHERE e.id = ?::uuid`,
        [
          id,
          eventId,
          eventType,
          `idem-${id}`,
          status,
          fixture.attemptCount ?? (status === 'pending' ? 0 : 1),
          fixture.attemptsLeft ?? (status === 'pending' ? 5 : 4),
          fixture.nextAttemptAt ?? null,
          fixture.lockedUntil ?? null,
          fixture.lastStatusCode ?? null,
          fixture.lastError ?? null,
          fixture.createdAt ?? null,
          fixture.createdAt ?? null,
          fixture.completedAt === undefined ? (status === 'pending' ? null : (fixture.createdAt ?? new Date().toISOString())) : fixture.completedAt,
          fixture.endpointId,
        ],
      );
      if (status === 'pending') {
        const [row] = await sql<{ organization_id: string | null; delivery_queue: number; next_attempt_at: Date }>(
          `SELECT d.organization_id, e.delivery_queue, d.next_attempt_at FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = ?`,
          [id],
        );
        await jobs.enqueueAtCommit(em(), [deliveryJob({ id, ...row }, TEST_JOB_EXPIRY_SECONDS)]);
      }
      return id;
    },
    async attempt(deliveryId, fixture) {
      await sql(
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_headers, response_body)
         VALUES (?, ?, ?::timestamptz, ?, ?, ?, ?::jsonb, ?)`,
        [
          deliveryId,
          fixture.attempt,
          fixture.startedAt,
          fixture.durationMs ?? 12,
          fixture.statusCode ?? null,
          fixture.error ?? null,
          fixture.responseHeaders ? JSON.stringify(fixture.responseHeaders) : null,
          fixture.responseBody ?? null,
        ],
      );
    },
    manager: (organizationId) =>
      testPrincipal({ userId: `manager-${organizationId}`, organizationId, permissions: new Set(['webhooks.manage']) }),
    member: (organizationId) => testPrincipal({ userId: `member-${organizationId}`, organizationId, permissions: new Set(['records.read']) }),
    platformAdmin: () => testPrincipal({ userId: 'platform-admin', email: 'ops@example.com', isPlatformAdmin: true }),
    async listenForWakeUp() {
      const client = new Client({ connectionString: db.database.directUrl });
      listeners.push(client);
      await client.connect();
      const woken = new Promise<string>((resolve) => client.once('notification', (message) => resolve(message.payload ?? '')));
      await client.query(`LISTEN ${JOBS_DUE_CHANNEL}`);
      return { woken };
    },
    async listenForRouteAnnouncement() {
      const client = new Client({ connectionString: db.database.directUrl });
      listeners.push(client);
      await client.connect();
      const received: string[] = [];
      const pending: Array<(payload: string) => void> = [];
      let read = 0;
      client.on('notification', (message) => {
        received.push(message.payload ?? '');
        while (pending.length > 0 && read < received.length) pending.shift()?.(received[read++]);
      });
      await client.query(`LISTEN ${ROUTES_CHANGED_CHANNEL}`);
      return {
        next: () => (read < received.length ? Promise.resolve(received[read++]) : new Promise<string>((resolve) => pending.push(resolve))),
        received: () => [...received],
      };
    },
    async close() {
      await jobs.stop();
      await Promise.all(listeners.map((client) => client.end()));
      await db.close();
    },
  };
}
