import { Type, type Static } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, with Z' });
const OptionalTimestamp = Type.Union([Timestamp, Type.Null()]);

/** How deliveries to an endpoint are signed. */
export const SigningSchema = Type.Union([Type.Literal('contract'), Type.Literal('standard-webhooks')], {
  description:
    'contract: Webhook-Signature v1=<hex> over "<timestamp>.<body>" (the default). standard-webhooks: the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature v1,<base64> over "<id>.<timestamp>.<body>", keyed with the base64 after whsec_',
});
export type Signing = Static<typeof SigningSchema>;

/** Whether an endpoint's deliveries about one record go out one at a time, in order. */
export const OrderingSchema = Type.Union([Type.Literal('none'), Type.Literal('per-record')], {
  description:
    'none: deliveries go out as soon as they may, several at once (the default). per-record: deliveries about one record (its record id: record and card events) go one at a time in commit order, a failing one holding back the later ones about that record until it succeeds or fails for good; other records and events about no record are not held. A change applies to deliveries queued after it',
});
export type Ordering = Static<typeof OrderingSchema>;

/** A webhook endpoint as `webhooks.endpoints.*` answer it. */
export const EndpointViewSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    organizationId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'null: a platform-wide endpoint' }),
    url: Type.String(),
    description: Type.String(),
    subscriptions: Type.Array(Type.String()),
    signing: SigningSchema,
    ordering: OrderingSchema,
    principalId: Type.Union([Type.String(), Type.Null()], {
      description: 'Whom the endpoint acts as: record events reach it only when this member may read the record. null: nobody (record events are filtered)',
    }),
    state: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
    disabledReason: Type.Union([Type.String(), Type.Null()]),
    disabledAt: OptionalTimestamp,
    consecutiveFailures: Type.Integer(),
    /** Whether the built-in resolver holds the plaintext it signs with; false means attempts fail until the secret is rotated with a key configured. */
    signingSecretStored: Type.Boolean(),
    previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], { description: 'Until then deliveries are signed with the old secret too' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'WebhookEndpoint' },
);
export type EndpointView = Static<typeof EndpointViewSchema>;

/** `webhooks.endpoints.list` */
export const EndpointListSchema = Type.Object({ items: Type.Array(EndpointViewSchema) });
export type EndpointList = Static<typeof EndpointListSchema>;

/** `webhooks.endpoints.create` and `webhooks.endpoints.rotateSecret`: the endpoint and its new secret. */
export const EndpointWithSecretSchema = Type.Object({
  endpoint: EndpointViewSchema,
  secret: Type.String({ description: 'Shown once: only its hash is stored' }),
});
export type EndpointWithSecret = Static<typeof EndpointWithSecretSchema>;

/** `webhooks.endpoints.delete` */
export const DeletedEndpointSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
