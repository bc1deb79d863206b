import { Type, type Static } from '@sinclair/typebox';

/** An event type a webhook subscription or an automation trigger can name. */
export const EventTypeInfoSchema = Type.Object({ type: Type.String() });
export type EventTypeInfo = Static<typeof EventTypeInfoSchema>;

/** `webhooks.eventTypes.list` */
export const EventTypeListSchema = Type.Object({ items: Type.Array(EventTypeInfoSchema) });
export type EventTypeList = Static<typeof EventTypeListSchema>;
