/**
 * The static types of the notifications lib's procedure inputs and answers (the inbox, sending),
 * for code that calls the procedures by name (the console over /rpc): the types of the TypeBox
 * schemas the procedures declare, so each shape is written once. Types only: nothing here runs,
 * its imports are `import type` (lint), and the schema files it reads import only TypeBox.
 */
import type { Static } from '@sinclair/typebox';
import type * as InboxInputs from './inbox/inbox-inputs';
import type * as NotificationViews from './inbox/notification-view';
import type * as SendSchemas from './sending/send-inputs';

export type { MarkReadResult, NotificationPage, NotificationView } from './inbox/notification-view';

/**
 * What each notifications procedure a door serves takes and answers, by name: the static types of
 * the input and output schemas it declares (`procedures.spec.ts` fails when they drift). A caller
 * by name (the console's `call`) gets both from the name alone.
 */
export interface NotificationsProcedures {
  'notifications.list': { input: Static<typeof InboxInputs.NotificationsListInput>; output: Static<typeof NotificationViews.NotificationPageSchema> };
  'notifications.markRead': { input: Static<typeof InboxInputs.NotificationsMarkReadInput>; output: Static<typeof NotificationViews.MarkReadResultSchema> };
  'notifications.send': { input: Static<typeof SendSchemas.NotificationsSendInput>; output: Static<typeof SendSchemas.NotifiedSchema> };
}
