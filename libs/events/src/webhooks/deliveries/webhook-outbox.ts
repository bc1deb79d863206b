import type { EntityManager } from '@mikro-orm/postgresql';
import { executePreparedAtCommit, newId, preparedStatement, sqlTextArray, type EventEnvelope } from '@mrp/platform';
import { eventMatches } from '../../bus/subscription-pattern';
import type { EventPersister } from '../../bus/event-dispatcher';
import { RouteCache } from '../../bus/route-cache';

/** Each user's member organizations (authz's directory, handed in by the composition root). */
export type MemberOrganizations = (em: EntityManager, userIds: readonly string[]) => Promise<Map<string, string[]>>;

/** What a member reads records with: its live role ids and permissions. */
export interface ReaderAccess {
  roleIds: readonly string[];
  permissions: readonly string[];
}

/**
 * The live access of those of `principalIds` who may act in the organization (members, not
 * disabled or deleted); anyone missing from the answer reads nothing. authz's, handed in.
 */
export type PrincipalAccess = (em: EntityManager, organizationId: string, principalIds: readonly string[]) => Promise<Map<string, ReaderAccess>>;

interface RoutableEndpoint {
  id: string;
  organization_id: string | null;
  subscriptions: string[];
  /** Whom the endpoint acts as; null: nobody (record events are filtered). */
  principal_id: string | null;
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
  return `INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, body, idempotency_key, status,
                                  record_access_role_ids, completed_at)
   SELECT d.id, d.endpoint_id, e.organization_id, d.event_id, d.event_type, d.body, d.idempotency_key, d.status,
          d.record_access_role_ids, CASE WHEN d.status = 'filtered' THEN now() END
     FROM ${rows}
     -- One lookup by primary key per row (LIMIT keeps the planner from scanning every enabled endpoint instead).
     CROSS JOIN LATERAL (
       SELECT organization_id FROM webhook_endpoints WHERE id = d.endpoint_id AND state = 'enabled' LIMIT 1
     ) e`;
}

/** Any number of deliveries: $1 is a JSON array of rows. */
const QUEUE_DELIVERIES = preparedStatement(
  queueDeliveriesFrom(
    'jsonb_to_recordset($1::jsonb) AS d(id uuid, endpoint_id uuid, event_id uuid, event_type text, body text, idempotency_key text, status text, record_access_role_ids uuid[])',
  ),
  { purpose: 'webhook deliveries queued', indexes: ['webhook_endpoints_pkey'] },
);

/**
 * The common case, one delivery, with one parameter per column: the body travels as it is, not
 * escaped into a JSON string and parsed back by PostgreSQL.
 */
const QUEUE_ONE_DELIVERY = preparedStatement(
  queueDeliveriesFrom(
    '(VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, $7::text, $8::uuid[])) AS d(id, endpoint_id, event_id, event_type, body, idempotency_key, status, record_access_role_ids)',
  ),
  { purpose: 'a webhook delivery queued', indexes: ['webhook_endpoints_pkey'] },
);

interface QueuedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  idempotency_key: string;
  status: 'pending' | 'filtered';
  record_access_role_ids: string[] | null;
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

export function createWebhookOutbox(memberOrganizations: MemberOrganizations, wakeWorkers: () => void, principalAccess: PrincipalAccess): WebhookOutbox {
  // The events whose transaction queued deliveries; held weakly, so a rolled-back one is simply forgotten.
  const queuedDeliveries = new WeakSet<EventEnvelope>();
  const routes = new RouteCache<RoutableEndpoint>({
    load: (em, organizationIds) =>
      em.execute<RoutableEndpoint[]>(
        `SELECT id, organization_id, subscriptions, principal_id FROM webhook_endpoints
          WHERE state = 'enabled' AND (organization_id IS NULL OR organization_id = ANY(?::uuid[]))`,
        [sqlTextArray(organizationIds)],
      ),
    organizationOf: (endpoint) => endpoint.organization_id,
    idOf: (endpoint) => endpoint.id,
  });
  /** The live access of the principals of organizations' endpoints a record event matched, by organization. */
  async function readersOf(em: EntityManager, matches: ReadonlyArray<{ event: EventEnvelope; endpoint: RoutableEndpoint }>) {
    const principalsByOrganization = new Map<string, Set<string>>();
    for (const { event, endpoint } of matches) {
      if (!event.recordAccess || endpoint.organization_id === null || endpoint.principal_id === null) continue;
      const principals = principalsByOrganization.get(endpoint.organization_id) ?? new Set<string>();
      principals.add(endpoint.principal_id);
      principalsByOrganization.set(endpoint.organization_id, principals);
    }
    const readers = new Map<string, Map<string, ReaderAccess>>();
    for (const [organizationId, principals] of principalsByOrganization) {
      readers.set(organizationId, await principalAccess(em, organizationId, [...principals]));
    }
    return readers;
  }

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

      const matches: Array<{ event: EventEnvelope; endpoint: RoutableEndpoint }> = [];
      for (const event of routable) {
        const owners = new Set(organizationsOf(event));
        for (const endpoint of endpoints) {
          const ownsEvent = endpoint.organization_id === null || owners.has(endpoint.organization_id);
          if (ownsEvent && endpoint.subscriptions.some((pattern) => eventMatches(pattern, event))) matches.push({ event, endpoint });
        }
      }
      if (matches.length === 0) return;
      const readers = await readersOf(em, matches);

      const rows: QueuedDelivery[] = [];
      const bodies = new Map<EventEnvelope, string>();
      for (const { event, endpoint } of matches) {
        // A platform-wide endpoint acts as no member: it gets records no role restricts.
        const reader =
          endpoint.organization_id === null
            ? { roleIds: [], permissions: ['records.read'] }
            : endpoint.principal_id === null
              ? undefined
              : readers.get(endpoint.organization_id)?.get(endpoint.principal_id);
        const readable = mayReadEventRecord(event, reader);
        let body = readable ? bodies.get(event) : undefined;
        if (body === undefined) {
          // A filtered delivery keeps the event without its payload: the log says what was withheld, not what it held.
          body = deliveryBody(readable ? event : { ...event, payload: undefined });
          if (readable) bodies.set(event, body);
        }
        rows.push({
          id: newId(),
          endpoint_id: endpoint.id,
          event_id: event.id,
          event_type: event.type,
          body,
          idempotency_key: newId(),
          status: readable ? 'pending' : 'filtered',
          record_access_role_ids: event.recordAccess ? [...event.recordAccess.roleIds] : null,
        });
        if (readable) queuedDeliveries.add(event);
      }
      if (rows.length === 1) {
        const [{ id, endpoint_id, event_id, event_type, body, idempotency_key, status, record_access_role_ids }] = rows;
        await executePreparedAtCommit(em, QUEUE_ONE_DELIVERY, [
          id,
          endpoint_id,
          event_id,
          event_type,
          body,
          idempotency_key,
          status,
          record_access_role_ids === null ? null : sqlTextArray(record_access_role_ids),
        ]);
      } else {
        await executePreparedAtCommit(em, QUEUE_DELIVERIES, [JSON.stringify(rows)]);
      }
    },
  };
}
