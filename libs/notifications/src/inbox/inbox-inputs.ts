import { Type } from '@sinclair/typebox';

/**
 * The input schemas of the inbox's procedures (`notifications.list`, `notifications.markRead`).
 * Their static types are the inputs of the notifications lib's contracts (decision 155): this file
 * imports nothing server-side.
 */

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** `notifications.list` */
export const NotificationsListInput = Type.Object(
  {
    unreadOnly: Type.Optional(Type.Boolean({ default: false })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** `notifications.markRead` */
export const NotificationsMarkReadInput = Type.Object(
  {
    ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: MAX_PAGE_SIZE, uniqueItems: true })),
    all: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);
