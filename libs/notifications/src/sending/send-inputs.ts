import { Type } from '@sinclair/typebox';

/**
 * The input and answer schemas of `notifications.send`, whose static types are in the
 * notifications lib's contracts (decision 155): this file imports nothing server-side.
 */

/** `notifications.send` */
export const NotificationsSendInput = Type.Object(
  {
    userIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100, uniqueItems: true })),
    role: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'A role key: every member holding it' })),
    title: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
    body: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  { additionalProperties: false },
);

/** `notifications.send`: how many members were notified. */
export const NotifiedSchema = Type.Object({ notified: Type.Integer({ minimum: 0 }) });
