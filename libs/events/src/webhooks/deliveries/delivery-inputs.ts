import { Type } from '@sinclair/typebox';
import { platformInputProperty } from '../endpoints/endpoint-inputs';
import { DeliveryStatusSchema } from './delivery-view';

/**
 * The input schemas of the `webhooks.deliveries.*` procedures and of `webhooks.endpoints.recover`.
 * Their static types are the inputs of the events lib's contracts (decision 155): this file
 * imports nothing server-side.
 */

export const DEFAULT_DELIVERY_PAGE_SIZE = 25;
export const MAX_DELIVERY_PAGE_SIZE = 100;

const Id = Type.String({ format: 'uuid' });
const instant = (description: string) => Type.String({ format: 'date-time', description: `${description} (ISO 8601 with a time zone)` });

/** `webhooks.deliveries.list` */
export const DeliveriesListInput = Type.Object(
  {
    ...platformInputProperty,
    endpointId: Type.Optional(Id),
    status: Type.Optional(DeliveryStatusSchema),
    eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Exact event type' })),
    since: Type.Optional(instant('Created at or after')),
    until: Type.Optional(instant('Created before')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DELIVERY_PAGE_SIZE, default: DEFAULT_DELIVERY_PAGE_SIZE })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'nextCursor of the previous page' })),
  },
  { additionalProperties: false },
);

/** `webhooks.deliveries.get`, `webhooks.deliveries.redeliver` */
export const DeliveryByIdInput = Type.Object({ ...platformInputProperty, id: Id }, { additionalProperties: false });

/** `webhooks.endpoints.recover` */
export const EndpointsRecoverInput = Type.Object(
  {
    ...platformInputProperty,
    id: Type.String({ format: 'uuid', description: 'The endpoint' }),
    since: instant('Created at or after; at most the retention period (WEBHOOK_RETENTION_DAYS) ago'),
    until: Type.Optional(instant('Created before; default: no end')),
  },
  { additionalProperties: false },
);
