import { Type } from '@sinclair/typebox';
import { OrderingSchema, SigningSchema } from './endpoint-view';

/**
 * The input schemas of the `webhooks.endpoints.*` procedures (recover's sits with the deliveries').
 * Their static types are the inputs of the events lib's contracts (decision 155): this file imports
 * nothing server-side.
 */

/** Longest overlap a rotation may keep the old secret signing. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

/** The input property that picks platform-wide endpoints; absent or false = the active organization's. */
export const platformInputProperty = {
  platform: Type.Optional(
    Type.Boolean({ description: 'Act on platform-wide endpoints (platform admins only) instead of the organization\'s' }),
  ),
};

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https (http only to loopback or private hosts in development)' });
const Description = Type.String({ maxLength: 500 });
const Subscriptions = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  description: 'Event types: exact (`data-models.record-created`, `data-models.invoice.record-created`), a prefix (`data-models.*`) or `*`',
});
const EndpointId = Type.String({ format: 'uuid' });
const PrincipalId = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Whom the endpoint acts as: you (the default) or a service account of the organization (svc_…); platform-wide endpoints act as their creator',
});

/** `webhooks.endpoints.list` */
export const EndpointsListInput = Type.Object({ ...platformInputProperty }, { additionalProperties: false });

/** `webhooks.endpoints.create` */
export const EndpointsCreateInput = Type.Object(
  {
    ...platformInputProperty,
    url: Url,
    description: Type.Optional(Description),
    subscriptions: Subscriptions,
    principalId: Type.Optional(PrincipalId),
    signing: Type.Optional(SigningSchema),
    ordering: Type.Optional(OrderingSchema),
  },
  { additionalProperties: false },
);

/** `webhooks.endpoints.update` */
export const EndpointsUpdateInput = Type.Object(
  {
    ...platformInputProperty,
    id: EndpointId,
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    subscriptions: Type.Optional(Subscriptions),
    principalId: Type.Optional(PrincipalId),
    ordering: Type.Optional(OrderingSchema),
  },
  { additionalProperties: false },
);

/** `webhooks.endpoints.delete`, `webhooks.endpoints.enable` */
export const EndpointByIdInput = Type.Object({ ...platformInputProperty, id: EndpointId }, { additionalProperties: false });

/** `webhooks.endpoints.rotateSecret` */
export const EndpointsRotateSecretInput = Type.Object(
  {
    ...platformInputProperty,
    id: EndpointId,
    overlapSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_ROTATION_OVERLAP_SECONDS, default: 0, description: 'How long the old secret keeps signing (0 to 7 days)' }),
    ),
    signing: Type.Optional(SigningSchema),
  },
  { additionalProperties: false },
);

/** `webhooks.endpoints.disable` */
export const EndpointsDisableInput = Type.Object(
  { ...platformInputProperty, id: EndpointId, reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) },
  { additionalProperties: false },
);
