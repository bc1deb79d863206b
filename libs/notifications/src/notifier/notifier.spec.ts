import { createEventDispatcher, InProcessEventBus } from '@mrp/events';
import type { EventEnvelope } from '@mrp/platform';
import { silentLogger } from '@mrp/platform/testing';
import {
  OPERATOR_EMAIL,
  createNotificationsHarness,
  insertServiceAccount,
  type NotificationsHarness,
} from '@mrp/notifications/testing';

describe('createNotifier', () => {
  let h: NotificationsHarness;
  beforeAll(async () => {
    h = await createNotificationsHarness();
  });
  afterAll(() => h.close());

  const rowsFor = (userId: string) =>
    h.sql<{ kind: string; title: string; body: string | null; data: unknown; read_at: string | null }>(
      'SELECT kind, title, body, data, read_at FROM notifications WHERE user_id = ? ORDER BY id',
      [userId],
    );

  it('creates one unread notification per human recipient and emits notification.created for each', async () => {
    const ada = await h.signUp(h.person('ada'));
    const bob = await h.signUp(h.person('bob'));
    const { result, emitted } = await h.inTransaction((scope) =>
      h.notifier.notify(scope, [ada, bob, ada], { kind: 'test.hello', title: 'Hello', body: 'Body text', data: { answer: 42 } }),
    );
    expect(result.map((notification) => notification.userId).sort()).toEqual([ada, bob].sort());
    expect(await rowsFor(ada)).toEqual([{ kind: 'test.hello', title: 'Hello', body: 'Body text', data: { answer: 42 }, read_at: null }]);
    expect(emitted).toHaveLength(2);
    expect(emitted).toEqual(
      result.map((notification) => ({
        type: 'notification.created',
        userId: notification.userId,
        payload: { notificationId: notification.id, userId: notification.userId, kind: 'test.hello', title: 'Hello' },
      })),
    );
  });

  it("makes notification.created an organization's event when the notification is about one", async () => {
    const erin = await h.signUp(h.person('erin'));
    const organizationId = 'f6f6f6f6-0000-4000-8000-000000000001';
    const { result, emitted } = await h.inTransaction((scope) =>
      h.notifier.notify(scope, [erin], { kind: 'test.org', title: 'About an organization', organizationId }),
    );
    // Routed to that organization's webhooks only, never to those of erin's other organizations.
    expect(emitted).toEqual([
      {
        type: 'notification.created',
        organizationId,
        userId: erin,
        payload: { notificationId: result[0].id, userId: erin, kind: 'test.org', title: 'About an organization' },
      },
    ]);
  });

  it('never creates one for a service account, a deleted user or an unknown id, whatever the caller passes', async () => {
    const human = await h.signUp(h.person('human'));
    const deleted = await h.signUp(h.person('deleted'));
    await h.sql('UPDATE users SET deleted_at = now() WHERE id = ?', [deleted]);
    const robot = await insertServiceAccount(h);
    const { result, emitted } = await h.inTransaction((scope) =>
      h.notifier.notify(scope, [robot, deleted, 'no-such-user', human], { kind: 'test.filter', title: 'Filtered' }),
    );
    expect(result.map((notification) => notification.userId)).toEqual([human]);
    expect(emitted.map((event) => event.userId)).toEqual([human]);
    expect(await rowsFor(robot)).toEqual([]);
    expect(await rowsFor(deleted)).toEqual([]);

    const { result: none } = await h.inTransaction((scope) => h.notifier.notify(scope, [robot], { kind: 'test.filter', title: 'Only a robot' }));
    expect(none).toEqual([]);
  });

  it('notifyOperators reaches the platform admins only, never an unverified claim of their address', async () => {
    const operator = await h.signUp({ sub: 'e5e5e5e5-0000-4000-8000-000000000001', email: OPERATOR_EMAIL.toUpperCase() });
    const someone = await h.signUp(h.person('someone'));
    const pretender = await h.signUp({ sub: 'e5e5e5e5-0000-4000-8000-000000000002', email: OPERATOR_EMAIL, emailVerified: false });
    const { result, emitted } = await h.inTransaction((scope) =>
      h.notifier.notifyOperators(scope, { kind: 'webhook.endpoint-disabled', title: 'A webhook endpoint was disabled' }),
    );
    expect(result.map((notification) => notification.userId)).toEqual([operator]);
    // Platform business: no routing scope, so only platform-wide webhook endpoints see it.
    expect(emitted).toHaveLength(1);
    expect(emitted[0]).toMatchObject({ type: 'notification.created', payload: { userId: operator } });
    expect(emitted[0].userId).toBeUndefined();
    expect(emitted[0].organizationId).toBeUndefined();
    expect(await rowsFor(someone)).toEqual([]);
    expect(await rowsFor(pretender)).toEqual([]);
  });

  it('writes nothing when the surrounding transaction rolls back', async () => {
    const carol = await h.signUp(h.person('carol'));
    await expect(
      h.inTransaction(async (scope) => {
        await h.notifier.notify(scope, [carol], { kind: 'test.rollback', title: 'Never seen' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await rowsFor(carol)).toEqual([]);
  });

  it('refuses a message without kind or title', async () => {
    const dave = await h.signUp(h.person('dave'));
    await expect(h.inTransaction((scope) => h.notifier.notify(scope, [dave], { kind: '', title: 'x' }))).rejects.toThrow(
      'A notification needs a kind',
    );
    await expect(h.inTransaction((scope) => h.notifier.notify(scope, [dave], { kind: 'k', title: ' ' }))).rejects.toThrow(
      'A notification needs a title',
    );
  });
});

describe('notifications from authz procedures', () => {
  let h: NotificationsHarness;
  const bus = new InProcessEventBus(silentLogger);
  const seen: EventEnvelope[] = [];
  bus.subscribe('notification.*', (event) => {
    seen.push(event);
  });

  beforeAll(async () => {
    h = await createNotificationsHarness(createEventDispatcher(bus));
  });
  afterAll(() => h.close());

  it('a role assigned to a human notifies them; one assigned to a service account notifies nobody', async () => {
    const owner = h.person('owner');
    const bob = h.person('bob');
    const org = await h.call<{ id: string }>('organizations.create', { name: 'Notify Co' }, owner);
    const { token } = await h.call<{ token: string }>('organizations.invite', { email: bob.email, roleKeys: ['read-only'] }, owner, org.id);
    await h.call('organizations.acceptInvite', { token }, bob);
    const robot = await insertServiceAccount(h, org.id);

    await h.call('rbac.roles.assign', { userId: bob.sub, roleKey: 'member' }, owner, org.id);
    await h.call('rbac.roles.assign', { userId: robot, roleKey: 'member' }, owner, org.id);
    await bus.idle();

    const list = await h.call<{ items: Array<{ kind: string; title: string; data: unknown }> }>('notifications.list', {}, bob);
    expect(list.items).toEqual([
      expect.objectContaining({ kind: 'rbac.role-assigned', title: 'You now have the role Member in Notify Co', data: { organizationId: org.id, roleKey: 'member' } }),
    ]);
    expect(await h.sql('SELECT id FROM notifications WHERE user_id = ?', [robot])).toEqual([]);

    // The owner heard that bob accepted the invite; the bus delivered both notification.created events.
    const ownerList = await h.call<{ items: Array<{ kind: string }> }>('notifications.list', {}, owner);
    expect(ownerList.items.map((item) => item.kind)).toEqual(['organization.invite-accepted']);
    expect(seen.map((event) => [event.type, event.userId])).toEqual([
      ['notification.created', owner.sub],
      ['notification.created', bob.sub],
    ]);
  });
});
