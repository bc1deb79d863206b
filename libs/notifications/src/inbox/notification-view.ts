import { Type, type Static } from '@sinclair/typebox';

/** A notification as `notifications.list` answers it. */
export const NotificationViewSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: Type.String(),
  title: Type.String(),
  body: Type.Union([Type.String(), Type.Null()]),
  data: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String({ format: 'date-time' }),
  readAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type NotificationView = Static<typeof NotificationViewSchema>;

/** `notifications.list`: a page, newest first, with the unread count. */
export const NotificationPageSchema = Type.Object({
  items: Type.Array(NotificationViewSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
  unreadCount: Type.Integer(),
});
export type NotificationPage = Static<typeof NotificationPageSchema>;

/** `notifications.markRead` */
export const MarkReadResultSchema = Type.Object({ updated: Type.Integer({ description: 'How many notifications went from unread to read' }) });
export type MarkReadResult = Static<typeof MarkReadResultSchema>;
