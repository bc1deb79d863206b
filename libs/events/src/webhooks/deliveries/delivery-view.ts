import { Type, type Static } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, with Z' });
const OptionalTimestamp = Type.Union([Timestamp, Type.Null()]);

export const DeliveryStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('filtered')], {
  description:
    "pending: queued or being retried; succeeded: a 2xx was received; failed: given up (attempts spent, 410 Gone, or the endpoint disabled); filtered: never sent, the endpoint's principal may not read the event's record",
});
export type DeliveryStatus = Static<typeof DeliveryStatusSchema>;

export const DeliveryViewSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Sent as Webhook-Delivery-Id' }),
    endpointId: Type.String({ format: 'uuid' }),
    eventId: Type.String({ format: 'uuid' }),
    eventType: Type.String(),
    idempotencyKey: Type.String({ description: 'Sent as Idempotency-Key, the same on every attempt and redelivery' }),
    sequence: Type.Union([Type.Integer(), Type.Null()], {
      description: "Sent as Webhook-Sequence: the endpoint's number for the delivery, the same on every attempt and redelivery; null until numbered (just after commit), and for a filtered delivery",
    }),
    status: DeliveryStatusSchema,
    attemptCount: Type.Integer({ description: 'Attempts made over the delivery\'s life, redeliveries included' }),
    attemptsLeft: Type.Integer({ description: 'Attempts left in the current round of 5' }),
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'When the next attempt is due; null unless pending' }),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: OptionalTimestamp,
  },
  { title: 'WebhookDelivery' },
);
export type DeliveryView = Static<typeof DeliveryViewSchema>;

export const DeliveryAttemptViewSchema = Type.Object(
  {
    attempt: Type.Integer({ description: 'Numbered over the delivery\'s life, as Webhook-Attempt was' }),
    startedAt: Timestamp,
    durationMs: Type.Integer(),
    statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no response (timeout, connection refused, refused address)' }),
    error: Type.Union([Type.String(), Type.Null()]),
    responseHeaders: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
    responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 4 KiB of the response body' }),
  },
  { title: 'WebhookDeliveryAttempt' },
);
export type DeliveryAttemptView = Static<typeof DeliveryAttemptViewSchema>;

/** `webhooks.deliveries.list`: paged by keyset. */
export const DeliveryPageSchema = Type.Object({
  items: Type.Array(DeliveryViewSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page' }),
});
export type DeliveryPage = Static<typeof DeliveryPageSchema>;

/** `webhooks.deliveries.get`: a delivery with the event it carries and its attempts. */
export const DeliveryDetailSchema = Type.Composite([
  DeliveryViewSchema,
  Type.Object({
    event: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The event object, exactly the body that is sent; without `payload` when it is about a record you may not read',
    }),
    payloadWithheld: Type.Boolean({
      description: "true: the event is about a record you may not read (records.read and its roles), or the delivery was filtered (the endpoint's principal may not), so its payload is left out",
    }),
    attempts: Type.Array(DeliveryAttemptViewSchema),
  }),
]);
export type DeliveryDetail = Static<typeof DeliveryDetailSchema>;

/** `webhooks.endpoints.recover` */
export const RecoveredDeliveriesSchema = Type.Object({ requeued: Type.Integer({ description: 'How many failed deliveries were queued again' }) });
