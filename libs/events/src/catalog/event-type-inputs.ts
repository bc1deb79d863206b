import { Type } from '@sinclair/typebox';

/**
 * The input schema of `webhooks.eventTypes.list`, whose static type is in the events lib's
 * contracts (decision 155): this file imports nothing server-side.
 */

/** `webhooks.eventTypes.list` */
export const EventTypesListInput = Type.Object({}, { additionalProperties: false });
