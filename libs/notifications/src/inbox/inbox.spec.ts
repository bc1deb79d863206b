import { createNotificationsHarness, type NotificationsHarness } from '@mrp/notifications/testing';
import type { NotificationView } from './inbox-procedures';

interface Page {
  items: NotificationView[];
  nextCursor: string | null;
  unreadCount: number;
}

describe('notifications.list / markRead', () => {
  let h: NotificationsHarness;
  let ada: ReturnType<NotificationsHarness['person']>;
  let bob: ReturnType<NotificationsHarness['person']>;
  let bobsNotification: string;

  beforeAll(async () => {
    h = await createNotificationsHarness();
    ada = h.person('ada');
    bob = h.person('bob');
    const [adaId, bobId] = [await h.signUp(ada), await h.signUp(bob)];
    // Five for ada, created one after the other so the order is known; one for bob.
    for (let index = 1; index <= 5; index += 1) {
      await h.inTransaction((scope) => h.notifier.notify(scope, [adaId], { kind: 'test.count', title: `Note ${index}` }));
    }
    const { result } = await h.inTransaction((scope) => h.notifier.notify(scope, [bobId], { kind: 'test.private', title: "Bob's" }));
    bobsNotification = result[0].id;
  });
  afterAll(() => h.close());

  const list = (input: object, who = ada) => h.call<Page>('notifications.list', input, who);

  it('lists only your own notifications, newest first, with the unread count', async () => {
    const page = await list({});
    expect(page.items.map((item) => item.title)).toEqual(['Note 5', 'Note 4', 'Note 3', 'Note 2', 'Note 1']);
    expect(page).toMatchObject({ nextCursor: null, unreadCount: 5 });
    expect(page.items[0]).toEqual({
      id: expect.any(String),
      kind: 'test.count',
      title: 'Note 5',
      body: null,
      data: {},
      createdAt: expect.stringMatching(/Z$/),
      readAt: null,
    });
  });

  it('pages with a keyset cursor', async () => {
    const first = await list({ limit: 2 });
    expect(first.items.map((item) => item.title)).toEqual(['Note 5', 'Note 4']);
    const second = await list({ limit: 2, cursor: first.nextCursor });
    expect(second.items.map((item) => item.title)).toEqual(['Note 3', 'Note 2']);
    const third = await list({ limit: 2, cursor: second.nextCursor });
    expect(third.items.map((item) => item.title)).toEqual(['Note 1']);
    expect(third.nextCursor).toBeNull();
  });

  it('rejects a bad cursor, a limit above 100 and unknown input (400)', async () => {
    await expect(list({ cursor: 'garbage' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'cursor', code: 'invalid_format' })],
    });
    await expect(list({ limit: 101 })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'limit', code: 'out_of_range' })],
    });
    await expect(list({ page: 2 })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it("marks some as read; another user's notification is 404 and nothing changes", async () => {
    const { items } = await list({});
    await expect(h.call('notifications.markRead', { ids: [items[0].id, bobsNotification] }, ada)).rejects.toMatchObject({
      code: 'not_found',
      message: 'Notification not found',
    });
    expect((await list({})).unreadCount).toBe(5);

    await expect(h.call('notifications.markRead', { ids: [items[0].id, items[1].id] }, ada)).resolves.toEqual({ updated: 2 });
    await expect(h.call('notifications.markRead', { ids: [items[0].id] }, ada)).resolves.toEqual({ updated: 0 });
    const unread = await list({ unreadOnly: true });
    expect(unread.items.map((item) => item.title)).toEqual(['Note 3', 'Note 2', 'Note 1']);
    expect(unread.unreadCount).toBe(3);
    expect((await list({})).items[0].readAt).toMatch(/Z$/);
  });

  it('marks all of your own as read, and only yours', async () => {
    await expect(h.call('notifications.markRead', { all: true }, ada)).resolves.toEqual({ updated: 3 });
    expect((await list({})).unreadCount).toBe(0);
    expect((await list({}, bob)).unreadCount).toBe(1);
  });

  it('needs exactly one of ids and all (400)', async () => {
    await expect(h.call('notifications.markRead', {}, ada)).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(h.call('notifications.markRead', { ids: [bobsNotification], all: true }, ada)).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(h.call('notifications.markRead', { ids: ['not-a-uuid'] }, ada)).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'ids.0', code: 'invalid_format' })],
    });
    await expect(h.call('notifications.markRead', { all: false }, ada)).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('a disabled account cannot read its notifications (401)', async () => {
    const carol = h.person('carol');
    await h.signUp(carol);
    await h.sql('UPDATE users SET disabled_at = now() WHERE id = ?', [carol.sub]);
    await expect(list({}, carol)).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
