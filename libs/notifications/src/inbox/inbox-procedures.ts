import { defineProcedure, notFound, validationFailed } from '@mrp/platform';
import { sqlTextArray } from '@mrp/platform';
import { decodeCursor, encodeCursor } from './cursor';
import { DEFAULT_PAGE_SIZE, NotificationsListInput, NotificationsMarkReadInput } from './inbox-inputs';
import { MarkReadResultSchema, NotificationPageSchema, type NotificationView } from './notification-view';

export type { NotificationView } from './notification-view';

interface NotificationRow {
  id: string;
  kind: string;
  title: string;
  body: string | null;
  data: Record<string, unknown>;
  created_at: string;
  read_at: string | null;
}

const toView = (row: NotificationRow): NotificationView => ({
  id: row.id,
  kind: row.kind,
  title: row.title,
  body: row.body,
  data: row.data,
  createdAt: new Date(row.created_at).toISOString(),
  readAt: row.read_at === null ? null : new Date(row.read_at).toISOString(),
});

export const listNotifications = defineProcedure({
  name: 'notifications.list',
  summary: 'Your notifications, newest first, with the unread count',
  scope: 'user',
  permission: null,
  readOnly: true,
  input: NotificationsListInput,
  output: NotificationPageSchema,
  async handler(ctx, input) {
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const after = input.cursor === undefined ? null : decodeCursor(input.cursor);
    const conditions = ['user_id = ?'];
    const params: unknown[] = [ctx.principal.userId];
    if (input.unreadOnly) conditions.push('read_at IS NULL');
    if (after) {
      conditions.push('id < ?');
      params.push(after);
    }
    // One row past the page tells whether there is a next page without a count.
    const rows = await ctx.em.execute<NotificationRow[]>(
      `SELECT id, kind, title, body, data, created_at, read_at FROM notifications
        WHERE ${conditions.join(' AND ')}
        ORDER BY id DESC
        LIMIT ?`,
      [...params, limit + 1],
    );
    const page = rows.slice(0, limit);
    const [{ unread }] = await ctx.em.execute<Array<{ unread: number }>>(
      'SELECT count(*)::int AS unread FROM notifications WHERE user_id = ? AND read_at IS NULL',
      [ctx.principal.userId],
    );
    return {
      items: page.map(toView),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1].id) : null,
      unreadCount: unread,
    };
  },
});

export const markNotificationsRead = defineProcedure({
  name: 'notifications.markRead',
  summary: 'Mark some of your notifications ({ ids }) or all of them ({ all: true }) as read',
  scope: 'user',
  permission: null,
  input: NotificationsMarkReadInput,
  output: MarkReadResultSchema,
  async handler(ctx, input) {
    if ((input.ids === undefined) === (input.all === undefined)) {
      throw validationFailed([{ field: '(body)', code: 'required', message: 'give either ids or all: true' }]);
    }
    const userId = ctx.principal.userId;
    if (input.all) {
      const updated = await ctx.em.execute<Array<{ id: string }>>(
        'UPDATE notifications SET read_at = now() WHERE user_id = ? AND read_at IS NULL RETURNING id',
        [userId],
      );
      return { updated: updated.length };
    }
    const ids = input.ids ?? [];
    // Someone else's notification is reported exactly like a missing one.
    const own = await ctx.em.execute<Array<{ id: string }>>(
      'SELECT id FROM notifications WHERE user_id = ? AND id = ANY(?::uuid[])',
      [userId, sqlTextArray(ids)],
    );
    if (own.length !== ids.length) throw notFound('Notification');
    const updated = await ctx.em.execute<Array<{ id: string }>>(
      'UPDATE notifications SET read_at = now() WHERE user_id = ? AND id = ANY(?::uuid[]) AND read_at IS NULL RETURNING id',
      [userId, sqlTextArray(ids)],
    );
    return { updated: updated.length };
  },
});

export function createNotificationProcedures() {
  return [listNotifications, markNotificationsRead];
}
