import type { EntityManager } from '@mikro-orm/postgresql';
import { executePreparedAtCommit, newId, preparedStatement, sqlTextArray, type EventEnvelope } from '@mrp/platform';
import { eventMatches } from '../../bus/subscription-pattern';
import type { EventPersister } from '../../bus/event-dispatcher';
import { RouteCache } from '../../bus/route-cache';

/** Each user's member organizations (authz's directory, handed in by the composition root). */
export type MemberOrganizations = (em: EntityManager, userIds: readonly string[]) => Promise<Map<string, string[]>>;

interface RoutableEndpoint {
  id: string;
  organization_id: string | null;
  subscriptions: string[];
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
    payload: event.payload,
  });
}

/**
 * Queues deliveries from `rows`, a relation `d` of (id, endpoint_id, event_id, event_type, body,
 * idempotency_key). Prepared (planned once per connection, no query builder): it runs in the
 * transaction of every change that has an endpoint to tell. No foreign key to the endpoint (a lock
 * on its row per insert, decision 89): the join re-checks it, re-checked here because a change
 * another process made may not have reached this one's routes yet; a delivery whose endpoint is
 * deleted before this commits is dropped by the claim.
 */
function queueDeliveriesFrom(rows: string): string {
  return `INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, body, idempotency_key)
   SELECT d.id, d.endpoint_id, e.organization_id, d.event_id, d.event_type, d.body, d.idempotency_key
     FROM ${rows}
     -- One lookup by primary key per row (LIMIT keeps the planner from scanning every enabled endpoint instead).
     CROSS JOIN LATERAL (
       SELECT organization_id FROM webhook_endpoints WHERE id = d.endpoint_id AND state = 'enabled' LIMIT 1
     ) e`;
}

/** Any number of deliveries: $1 is a JSON array of rows. */
const QUEUE_DELIVERIES = preparedStatement(
  queueDeliveriesFrom('jsonb_to_recordset($1::jsonb) AS d(id uuid, endpoint_id uuid, event_id uuid, event_type text, body text, idempotency_key text)'),
  { purpose: 'webhook deliveries queued', indexes: ['webhook_endpoints_pkey'] },
);

/**
 * The common case, one delivery, with one parameter per column: the body travels as it is, not
 * escaped into a JSON string and parsed back by PostgreSQL.
 */
const QUEUE_ONE_DELIVERY = preparedStatement(
  queueDeliveriesFrom('(VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text)) AS d(id, endpoint_id, event_id, event_type, body, idempotency_key)'),
  { purpose: 'a webhook delivery queued', indexes: ['webhook_endpoints_pkey'] },
);

interface QueuedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  idempotency_key: string;
}

/** Stands for "no organization" in the route lookup, which then finds the platform-wide endpoints only. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

/** `webhook.*` events are about delivery itself; queueing them could feed a failing endpoint its own failures. */
const isRoutable = (event: EventEnvelope) => !event.type.startsWith('webhook.');

/**
 * The transactional outbox: inside the transaction of the change that emitted the events, one
 * delivery per (event, matching enabled endpoint) is written (one INSERT, sent with COMMIT in its
 * round trip: decision 122), and the workers are woken once it committed (`wakeWorkers`,
 * coalesced: decision 89). A rollback takes the deliveries with it; a commit means they are
 * durably queued.
 *
 * An event is for the platform's endpoints (all of them) and for the endpoints of its
 * organization; an event about a user with no organization is for each of the user's member
 * organizations. The endpoints' subscriptions are matched with the bus's own rule (`eventMatches`).
 */
export interface WebhookOutbox extends EventPersister {
  /** The enabled endpoints by organization, kept while the process hears their changes (listenForRouteChanges). */
  routes: RouteCache<RoutableEndpoint>;
}

export function createWebhookOutbox(memberOrganizations: MemberOrganizations, wakeWorkers: () => void): WebhookOutbox {
  // The events whose transaction queued deliveries; held weakly, so a rolled-back one is simply forgotten.
  const queuedDeliveries = new WeakSet<EventEnvelope>();
  const routes = new RouteCache<RoutableEndpoint>({
    load: (em, organizationIds) =>
      em.execute<RoutableEndpoint[]>(
        `SELECT id, organization_id, subscriptions FROM webhook_endpoints
          WHERE state = 'enabled' AND (organization_id IS NULL OR organization_id = ANY(?::uuid[]))`,
        [sqlTextArray(organizationIds)],
      ),
    organizationOf: (endpoint) => endpoint.organization_id,
    idOf: (endpoint) => endpoint.id,
  });
  return {
    routes,
    committed(events) {
      if (events.some((event) => queuedDeliveries.has(event))) wakeWorkers();
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
      for (const event of routable) {
        const owners = new Set(organizationsOf(event));
        const body = deliveryBody(event);
        for (const endpoint of endpoints) {
          const ownsEvent = endpoint.organization_id === null || owners.has(endpoint.organization_id);
          if (ownsEvent && endpoint.subscriptions.some((pattern) => eventMatches(pattern, event))) {
            rows.push({ id: newId(), endpoint_id: endpoint.id, event_id: event.id, event_type: event.type, body, idempotency_key: newId() });
            queuedDeliveries.add(event);
          }
        }
      }
      if (rows.length === 0) return;
      if (rows.length === 1) {
        const [{ id, endpoint_id, event_id, event_type, body, idempotency_key }] = rows;
        await executePreparedAtCommit(em, QUEUE_ONE_DELIVERY, [id, endpoint_id, event_id, event_type, body, idempotency_key]);
      } else {
        await executePreparedAtCommit(em, QUEUE_DELIVERIES, [JSON.stringify(rows)]);
      }
    },
  };
}
