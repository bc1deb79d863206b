import { defineProcedure } from '@mrp/platform';
import { EVENT_TYPES } from './event-catalog';
import { EventTypesListInput } from './event-type-inputs';
import { EventTypeListSchema } from './event-type-view';

/**
 * The event catalog's types, for pickers (webhook subscriptions, automation triggers), so a client
 * offers exactly the types the server accepts and never keeps a copy of the list. Per-model record
 * types (`data-models.<model key>.record-created`, ...) follow from the models and are not listed.
 */
export const listEventTypes = defineProcedure({
  name: 'webhooks.eventTypes.list',
  summary: 'The event types a webhook subscription or an automation trigger can name, sorted',
  scope: 'user',
  permission: null,
  readOnly: true,
  input: EventTypesListInput,
  output: EventTypeListSchema,
  async handler() {
    return { items: [...EVENT_TYPES].sort().map((type) => ({ type })) };
  },
});
