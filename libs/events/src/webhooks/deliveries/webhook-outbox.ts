import type { EntityManager } from '@mikro-orm/postgresql';
import { executePreparedAtCommit, newId, preparedStatement, sqlTextArray, type EventEnvelope, type JobQueue, type PreparedStatement, type QueuedJob } from '@mrp/platform';
import { eventMatches } from '../../bus/subscription-pattern';
import type { EventPersister } from '../../bus/event-dispatcher';
import { RouteCache } from '../../bus/route-cache';
import { deliveryQueueName, type DeliveryJobData } from './delivery-queue';

/** Each user's member organizations (authz's directory, handed in by the composition root). */
export type MemberOrganizations = (em: EntityManager, userIds: readonly string[]) => Promise<Map<string, string[]>>;

/** What a member reads records with: its live role ids and permissions. */
export interface ReaderAccess {
  roleIds: readonly string[];
  permissions: readonly string[];
}

/**
 * SQL selecting the live access (`role_ids`, `permissions`) of the member `userId` of
 * `organizationId` who may act: one row, or none. Both arguments are column references of the
 * statement it goes into. authz's, handed in, so the delivery insert decides readability itself.
 */
export type MemberAccessSql = (organizationId: string, userId: string) => string;

interface RoutableEndpoint {
  id: string;
  organization_id: string | null;
  subscriptions: string[];
  /** The queue its deliveries are sent through (its organization's). */
  delivery_queue: number;
}

/**
 * Whether a reader may see an event's record: events about no record, yes; else `records.read`
 * and, for a restricted record, one of its roles. The rule of `visibleTo` in data-models, over the
 * roles the event carries.
 */
export function mayReadEventRecord(event: Pick<EventEnvelope, 'recordAccess'>, reader: ReaderAccess | undefined): boolean {
  if (!event.recordAccess) return true;
  if (!reader || !reader.permissions.includes('records.read')) return false;
  const restrictedTo = event.recordAccess.roleIds;
  return restrictedTo.length === 0 || restrictedTo.some((roleId) => reader.roleIds.includes(roleId));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The record an event is about, which an endpoint with `ordering: "per-record"` keeps its
 * deliveries in order for: events about a record carry its access, and its id as `recordId` (a
 * card event as `cardId`, the card being the record). Null for any other event: it is unordered.
 */
export function recordIdOf(event: Pick<EventEnvelope, 'recordAccess' | 'payload'>): string | null {
  if (!event.recordAccess || typeof event.payload !== 'object' || event.payload === null) return null;
  const { recordId, cardId } = event.payload as { recordId?: unknown; cardId?: unknown };
  const id = typeof recordId === 'string' ? recordId : cardId;
  return typeof id === 'string' && UUID.test(id) ? id : null;
}

/** The exact bytes a delivery sends: the event object, its fields in a fixed order. */
export function deliveryBody(event: EventEnvelope): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt,
    correlationId: event.correlationId,
    subscriptionAliases: event.subscriptionAliases,
    organizationId: event.organizationId,
    userId: event.userId,
    causedBy: event.causedBy,
    metadata: event.metadata,
    payload: event.payload,
  });
}

/**
 * Queues deliveries from `rows`, a relation `d` of (id, endpoint_id, event_id, event_type,
 * idempotency_key, record_access_role_ids), and stores each event's body once, from `bodies`, a
 * relation `b` of (event_id, body) (decision 149). Prepared (planned once per connection, no query
 * builder): it runs in the transaction of every change that has an endpoint to tell. No foreign
 * key to the endpoint (a lock on its row per insert, decision 89): the join re-checks it,
 * re-checked here because a change another process made may not have reached this one's routes
 * yet; a delivery whose endpoint is deleted before this commits is dropped by the numbering
 * (`sequenceDeliveries`).
 *
 * Whether the endpoint's principal may read the event's record is decided here, on its live
 * access, in the insert's own round trip: `mayReadEventRecord`'s rule. A delivery it may not read
 * is kept as filtered, completed; its readers leave the payload out, and an event that only
 * filtered deliveries carry is stored without it. An event no delivery was queued for (its
 * endpoints gone) stores no body.
 */
function queueDeliveriesFrom(rows: string, bodies: string, memberAccess: MemberAccessSql): string {
  return `WITH queued AS (
     INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, idempotency_key, status,
                                     record_access_role_ids, completed_at, ordering_key)
     SELECT d.id, d.endpoint_id, e.organization_id, d.event_id, d.event_type, d.idempotency_key,
            CASE WHEN s.readable THEN 'pending' ELSE 'filtered' END,
            d.record_access_role_ids, CASE WHEN s.readable THEN NULL ELSE now() END,
            CASE WHEN e.ordering = 'per-record' THEN d.record_id END
       FROM ${rows}
       -- One lookup by primary key per row (LIMIT keeps the planner from scanning every enabled endpoint instead).
       CROSS JOIN LATERAL (
         SELECT organization_id, principal_id, ordering FROM webhook_endpoints WHERE id = d.endpoint_id AND state = 'enabled' LIMIT 1
       ) e
       CROSS JOIN LATERAL (
         SELECT CASE
           WHEN d.record_access_role_ids IS NULL THEN true
           -- A platform-wide endpoint acts as no member: it gets records no role restricts.
           WHEN e.organization_id IS NULL THEN cardinality(d.record_access_role_ids) = 0
           -- An endpoint acting as nobody, or as someone who left, disabled or deleted, reads no record.
           ELSE EXISTS (
             SELECT 1 FROM (${memberAccess('e.organization_id', 'e.principal_id')}) reader
              WHERE 'records.read' = ANY(reader.permissions)
                AND (cardinality(d.record_access_role_ids) = 0 OR reader.role_ids && d.record_access_role_ids::text[])
           )
         END AS readable
       ) s
     RETURNING event_id, status
   )
   INSERT INTO webhook_event_bodies (event_id, body)
   SELECT DISTINCT ON (q.event_id) q.event_id, CASE WHEN q.status = 'pending' THEN b.body ELSE (b.body::jsonb - 'payload')::text END
     FROM queued q JOIN ${bodies} ON b.event_id = q.event_id
    ORDER BY q.event_id, q.status = 'pending' DESC`;
}

/** The endpoint by its key; the principal's membership, user, grants and roles by theirs. */
const DELIVERY_INSERT_INDEXES = [
  'webhook_endpoints_pkey',
  'memberships_organization_id_user_id_key',
  'users_pkey',
  'role_grants_membership_id_role_id_key',
  'roles_pkey',
];

export interface DeliveryStatements {
  one: PreparedStatement;
  many: PreparedStatement;
}

/**
 * The statements that queue deliveries, over the member-access rule handed in. Made once, where
 * the product is composed (a prepared statement is defined at load, so its plan can be checked).
 */
export function webhookDeliveryStatements(memberAccess: MemberAccessSql): DeliveryStatements {
  return {
    /** Any number of deliveries: $1 is a JSON array of rows, $2 one of their events' bodies. */
    many: preparedStatement(
      queueDeliveriesFrom(
        'jsonb_to_recordset($1::jsonb) AS d(id uuid, endpoint_id uuid, event_id uuid, event_type text, idempotency_key text, record_access_role_ids uuid[], record_id uuid)',
        'jsonb_to_recordset($2::jsonb) AS b(event_id uuid, body text)',
        memberAccess,
      ),
      { purpose: 'webhook deliveries queued', indexes: DELIVERY_INSERT_INDEXES },
    ),
    /**
     * The common case, one delivery, with one parameter per column: the body travels as it is, not
     * escaped into a JSON string and parsed back by PostgreSQL.
     */
    one: preparedStatement(
      queueDeliveriesFrom(
        '(VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, $6::text, $7::uuid[], $8::uuid)) AS d(id, endpoint_id, event_id, event_type, idempotency_key, record_access_role_ids, record_id)',
        '(VALUES ($3::uuid, $5::text)) AS b(event_id, body)',
        memberAccess,
      ),
      { purpose: 'a webhook delivery queued', indexes: DELIVERY_INSERT_INDEXES },
    ),
  };
}

interface QueuedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  idempotency_key: string;
  record_access_role_ids: string[] | null;
  record_id: string | null;
}

/** Stands for "no organization" in the route lookup, which then finds the platform-wide endpoints only. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

/** `webhook.*` events are about delivery itself; queueing them could feed a failing endpoint its own failures. */
const isRoutable = (event: EventEnvelope) => !event.type.startsWith('webhook.');

/** What the outbox needs of the job queue: jobs written with the COMMIT, and workers woken after it. */
export type DeliveryJobSink = Pick<JobQueue, 'enqueueAtCommit' | 'announce'>;

/**
 * The transactional outbox: inside the transaction of the change that emitted the events, one
 * delivery per (event, matching enabled endpoint) is written with its job (one INSERT each, sent
 * with COMMIT in its round trip: decision 122), and the workers of the jobs' queues are woken once
 * it committed (`announce`, coalesced: decision 89). A rollback takes the deliveries and jobs with
 * it; a commit means they are durably queued.
 *
 * An event is for the platform's endpoints (all of them) and for the endpoints of its
 * organization; an event about a user with no organization is for each of the user's member
 * organizations. The endpoints' subscriptions are matched with the bus's own rule (`eventMatches`).
 */
export interface WebhookOutbox extends EventPersister {
  /** The enabled endpoints by organization, kept while the process hears their changes (listenForRouteChanges). */
  routes: RouteCache<RoutableEndpoint>;
}

export function createWebhookOutbox(
  memberOrganizations: MemberOrganizations,
  jobs: DeliveryJobSink,
  statements: DeliveryStatements,
  /** Each job's expiry (`deliveryJobExpirySeconds`). */
  jobExpirySeconds: number,
): WebhookOutbox {
  // The queues each event's transaction queued jobs on; held weakly, so a rolled-back event is simply forgotten.
  const queuedDeliveries = new WeakMap<EventEnvelope, Set<string>>();
  const routes = new RouteCache<RoutableEndpoint>({
    load: (em, organizationIds) =>
      em.execute<RoutableEndpoint[]>(
        `SELECT id, organization_id, subscriptions, delivery_queue FROM webhook_endpoints
          WHERE state = 'enabled' AND (organization_id IS NULL OR organization_id = ANY(?::uuid[]))`,
        [sqlTextArray(organizationIds)],
      ),
    organizationOf: (endpoint) => endpoint.organization_id,
    idOf: (endpoint) => endpoint.id,
  });

  return {
    routes,
    committed(events) {
      const queues = new Set<string>();
      for (const event of events) for (const queue of queuedDeliveries.get(event) ?? []) queues.add(queue);
      if (queues.size > 0) jobs.announce(queues);
    },
    async persist(em, events) {
      const routable = events.filter(isRoutable);
      if (routable.length === 0) return;
      const userTied = routable.filter((event) => !event.organizationId && event.userId).map((event) => event.userId as string);
      const organizationsOfUser = userTied.length > 0 ? await memberOrganizations(em, [...new Set(userTied)]) : new Map<string, string[]>();
      const organizationsOf = (event: EventEnvelope): string[] =>
        event.organizationId ? [event.organizationId] : event.userId ? (organizationsOfUser.get(event.userId) ?? []) : [];
      const organizationIds = [...new Set(routable.flatMap(organizationsOf))];

      // Platform-wide endpoints see every event, even one that belongs to no organization.
      const endpoints = await routes.routesFor(em, organizationIds.length > 0 ? organizationIds : [NO_ORGANIZATION]);
      if (endpoints.length === 0) return;

      const rows: QueuedDelivery[] = [];
      const deliveryJobs: Array<QueuedJob<DeliveryJobData>> = [];
      const bodies = new Map<EventEnvelope, string>();
      for (const event of routable) {
        const owners = new Set(organizationsOf(event));
        for (const endpoint of endpoints) {
          const ownsEvent = endpoint.organization_id === null || owners.has(endpoint.organization_id);
          if (!ownsEvent || !endpoint.subscriptions.some((pattern) => eventMatches(pattern, event))) continue;
          if (!bodies.has(event)) bodies.set(event, deliveryBody(event));
          const id = newId();
          const queue = deliveryQueueName(endpoint.delivery_queue);
          rows.push({
            id,
            endpoint_id: endpoint.id,
            event_id: event.id,
            event_type: event.type,
            idempotency_key: newId(),
            record_access_role_ids: event.recordAccess ? [...event.recordAccess.roleIds] : null,
            record_id: recordIdOf(event),
          });
          // Possibly filtered in the insert: its job then finds nothing to send.
          deliveryJobs.push({ queue, data: { deliveryId: id, organizationId: endpoint.organization_id }, expireInSeconds: jobExpirySeconds });
          const queues = queuedDeliveries.get(event) ?? new Set<string>();
          queues.add(queue);
          queuedDeliveries.set(event, queues);
        }
      }
      if (rows.length === 0) return;
      await jobs.enqueueAtCommit(em, deliveryJobs);
      if (rows.length === 1) {
        const [{ id, endpoint_id, event_id, event_type, idempotency_key, record_access_role_ids, record_id }] = rows;
        await executePreparedAtCommit(em, statements.one, [
          id,
          endpoint_id,
          event_id,
          event_type,
          bodies.values().next().value as string,
          idempotency_key,
          record_access_role_ids === null ? null : sqlTextArray(record_access_role_ids),
          record_id,
        ]);
      } else {
        const eventBodies = [...bodies].map(([event, body]) => ({ event_id: event.id, body }));
        await executePreparedAtCommit(em, statements.many, [JSON.stringify(rows), JSON.stringify(eventBodies)]);
      }
    },
  };
}
