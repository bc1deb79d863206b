/**
 * The static types of the notifications lib's procedure answers (the inbox), for code that calls
 * the procedures by name (the console over /rpc): the types of the TypeBox schemas the procedures
 * declare, so each shape is written once. Types only: nothing here runs, its imports are
 * `import type` (lint), and the schema file it reads imports only TypeBox.
 */
export type { MarkReadResult, NotificationPage, NotificationView } from './inbox/notification-view';
