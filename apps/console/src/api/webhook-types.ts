import type { DeliveryDetail, DeliveryStatus, DeliveryView, EndpointView, Ordering, Signing } from '@mrp/events/contracts';

/** The answers of the webhook procedures (events lib, `webhooks.*`) the console reads: their own output types. */

export type { DeliveryStatus, EndpointWithSecret, EventTypeInfo } from '@mrp/events/contracts';

/** contract: the contract's `Webhook-Signature`; standard-webhooks: the Standard Webhooks headers. */
export type EndpointSigning = Signing;
/** per-record: one record's deliveries go one at a time, in commit order. */
export type EndpointOrdering = Ordering;

/** `webhooks.endpoints.list` items */
export type WebhookEndpoint = EndpointView;

/** Every status once, so a status the server adds fails this typecheck instead of missing from the filter. */
const deliveryStatuses: Record<DeliveryStatus, true> = { pending: true, succeeded: true, failed: true, filtered: true };
export const DELIVERY_STATUSES = Object.keys(deliveryStatuses) as DeliveryStatus[];

/** `webhooks.deliveries.list` items */
export type WebhookDelivery = DeliveryView;

/** `webhooks.deliveries.get` */
export type WebhookDeliveryDetail = DeliveryDetail;
