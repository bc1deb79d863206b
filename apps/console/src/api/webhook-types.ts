/**
 * The webhook procedures' answers as the server declares them (events lib, `webhooks.*`),
 * restated for the browser like `types.ts`.
 */

/** contract: the contract's `Webhook-Signature`; standard-webhooks: the Standard Webhooks headers. */
export type EndpointSigning = 'contract' | 'standard-webhooks';
/** per-record: one record's deliveries go one at a time, in commit order. */
export type EndpointOrdering = 'none' | 'per-record';

/** `webhooks.endpoints.list` items */
export interface WebhookEndpoint {
  id: string;
  organizationId: string | null;
  url: string;
  description: string;
  subscriptions: string[];
  signing: EndpointSigning;
  ordering: EndpointOrdering;
  /** Whom the endpoint acts as: record events reach it only when this member may read the record; null: nobody. */
  principalId: string | null;
  state: 'enabled' | 'disabled';
  disabledReason: string | null;
  disabledAt: string | null;
  consecutiveFailures: number;
  /** False: attempts fail until the secret is rotated with an encryption key configured. */
  signingSecretStored: boolean;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `webhooks.endpoints.create` and `webhooks.endpoints.rotateSecret`: the secret is shown once. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

/** filtered: never sent, the endpoint's principal may not read the event's record. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'filtered';
export const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'filtered'];

/** `webhooks.deliveries.list` items */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  idempotencyKey: string;
  status: DeliveryStatus;
  attemptCount: number;
  attemptsLeft: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseHeaders: Record<string, string> | null;
  /** The first 4 KiB of the response body. */
  responseBody: string | null;
}

/** `webhooks.deliveries.get` */
export interface WebhookDeliveryDetail extends WebhookDelivery {
  event: Record<string, unknown>;
  /** The event is about a record you may not read: `event` comes without its payload. */
  payloadWithheld: boolean;
  attempts: DeliveryAttempt[];
}

/** Lists paged by keyset: pass `nextCursor` back as `cursor`; null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** `webhooks.eventTypes.list` items */
export interface EventTypeInfo {
  type: string;
}
