import { defineEntity, p } from '@mikro-orm/core';

export const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    id: p.uuid().primary(),
    userId: p.text(),
    kind: p.text(),
    title: p.text(),
    body: p.text().nullable(),
    data: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    readAt: p.datetime().nullable(),
  },
});
