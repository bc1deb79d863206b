import { RecordingEventDispatcher } from '@mrp/platform/testing';
import {
  createNotificationsHarness,
  insertServiceAccount,
  startSmtpTestServer,
  type NotificationsHarness,
  type SmtpTestServer,
} from '@mrp/notifications/testing';
import { createSmtpSender, type SmtpSender } from './smtp-sender';

interface EmailRow {
  status: string;
  attempts: number;
  last_error: string | null;
  due: boolean;
}

describe('notification emails', () => {
  let smtp: SmtpTestServer;
  let sender: SmtpSender;
  let h: NotificationsHarness;
  const events = new RecordingEventDispatcher();

  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    sender = createSmtpSender({ smtpUrl: smtp.url, from: 'Platform <no-reply@platform.test>' });
    h = await createNotificationsHarness(events, { sendEmail: sender.send });
  });
  afterAll(async () => {
    sender.close();
    await h.close();
    await smtp.close();
  });
  beforeEach(async () => {
    smtp.received.length = 0;
    smtp.rejectWith = null;
    events.clear();
    // Each test sees only its own emails.
    await h.sql(`UPDATE notification_emails SET status = 'sent' WHERE status = 'pending'`);
  });

  async function notify(userIds: string[], title: string, body?: string) {
    const { result } = await h.inTransaction((scope) => h.notifier.notify(scope, userIds, { kind: 'test.email', title, body }));
    return result;
  }
  const emailOf = async (notificationId: string) =>
    (
      await h.sql<EmailRow>(
        'SELECT status, attempts, last_error, next_attempt_at <= now() AS due FROM notification_emails WHERE notification_id = ?',
        [notificationId],
      )
    )[0];

  it('emails a notification to its recipient, title as subject and body as text, once', async () => {
    const ada = h.person('ada');
    const adaId = await h.signUp(ada);
    const [notification] = await notify([adaId], 'Your export is ready', 'Download it within 7 days.');
    await expect(emailOf(notification.id)).resolves.toMatchObject({ status: 'pending', attempts: 0 });

    await expect(h.sendDueEmails()).resolves.toBe(1);
    expect(smtp.received).toHaveLength(1);
    const [email] = smtp.received;
    expect(email.from).toBe('no-reply@platform.test');
    expect(email.recipients).toEqual([ada.email.toLowerCase()]);
    expect(email.raw).toMatch(/^Subject: Your export is ready\r$/m);
    expect(email.raw).toContain('Download it within 7 days.');
    await expect(emailOf(notification.id)).resolves.toMatchObject({ status: 'sent', attempts: 1, last_error: null });
    await expect(h.sendDueEmails()).resolves.toBe(0);
    expect(smtp.received).toHaveLength(1);
  });

  it('queues no email when the transaction that notified rolls back', async () => {
    const ann = await h.signUp(h.person('ann'));
    await expect(
      h.inTransaction(async (scope) => {
        await h.notifier.notify(scope, [ann], { kind: 'test.email', title: 'Never' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await expect(h.sendDueEmails({ ignoreDelay: true })).resolves.toBe(0);
    expect(smtp.received).toEqual([]);
  });

  it('a title cannot add headers or recipients', async () => {
    const eve = await h.signUp(h.person('eve'));
    await notify([eve], 'Hello\r\nBcc: victim@example.test\r\nX-Injected: yes', 'body');
    await expect(h.sendDueEmails()).resolves.toBe(1);
    const [email] = smtp.received;
    expect(email.recipients).toHaveLength(1);
    const headers = email.raw.split('\r\n\r\n')[0];
    expect(headers).not.toMatch(/^Bcc:/im);
    expect(headers).not.toMatch(/^X-Injected:/im);
  });

  it('queues nothing for service accounts and forgets a recipient deleted since', async () => {
    const robot = await insertServiceAccount(h);
    const gone = await h.signUp(h.person('gone'));
    await expect(notify([robot], 'To a robot')).resolves.toEqual([]);
    const [notification] = await notify([gone], 'Too late');
    await h.sql('UPDATE users SET deleted_at = now() WHERE id = ?', [gone]);
    await expect(h.sendDueEmails()).resolves.toBe(1);
    expect(smtp.received).toEqual([]);
    await expect(emailOf(notification.id)).resolves.toMatchObject({ status: 'failed', last_error: 'The recipient can no longer be emailed' });
    expect(events.published).toEqual([]);
  });

  it('retries a refused email after 1, 4, 16 and 64 minutes, says so each time, and gives up after 5 attempts', async () => {
    const bob = await h.signUp(h.person('bob'));
    const [notification] = await notify([bob], 'Refused');
    smtp.rejectWith = 'Mailbox unavailable';
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      // Instead of waiting: the retry's job is taken though it is not due yet.
      await expect(h.sendDueEmails({ ignoreDelay: attempt > 1 })).resolves.toBe(1);
      const row = await emailOf(notification.id);
      expect(row).toMatchObject({ attempts: attempt, status: attempt < 5 ? 'pending' : 'failed', due: false });
      expect(row.last_error).toContain('Mailbox unavailable');
      const [{ minutes }] = await h.sql<{ minutes: number }>(
        'SELECT round(extract(epoch FROM next_attempt_at - now()) / 60)::int AS minutes FROM notification_emails WHERE notification_id = ?',
        [notification.id],
      );
      delays.push(minutes);
      // The next attempt's job waits for its time.
      await expect(h.sendDueEmails()).resolves.toBe(0);
    }
    expect(delays.slice(0, 4)).toEqual([1, 4, 16, 64]);
    await expect(h.sendDueEmails({ ignoreDelay: true })).resolves.toBe(0);
    expect(smtp.received).toEqual([]);
    const failures = events.ofType('notification.delivery-failed');
    expect(failures.map((event) => event.payload)).toEqual(
      [1, 2, 3, 4, 5].map((attempt) => ({
        notificationId: notification.id,
        userId: bob,
        channel: 'email',
        error: expect.stringContaining('Mailbox unavailable'),
        attempt,
        willRetry: attempt < 5,
      })),
    );
    expect(failures[0]).toMatchObject({ userId: bob });
    expect(events.persisted).toEqual(events.published);
  });

  it('two runs at once send each email once', async () => {
    const people = await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((label) => h.signUp(h.person(label))));
    await notify(people, 'Everyone once');
    const runs = await Promise.all([h.sendDueEmails(), h.sendDueEmails()]);
    expect(runs[0] + runs[1]).toBe(people.length);
    expect(smtp.received).toHaveLength(people.length);
    expect(new Set(smtp.received.map((email) => email.recipients[0])).size).toBe(people.length);
  });
});

describe('notification emails without SMTP', () => {
  it('queues nothing, and the task has nothing to do', async () => {
    const h = await createNotificationsHarness();
    try {
      const ada = await h.signUp(h.person('ada'));
      const { result } = await h.inTransaction((scope) => h.notifier.notify(scope, [ada], { kind: 'test.email', title: 'In-app only' }));
      expect(result).toHaveLength(1);
      await expect(h.sql('SELECT 1 FROM notification_emails')).resolves.toEqual([]);
      await expect(h.sendDueEmails()).resolves.toBe(0);
    } finally {
      await h.close();
    }
  });
});
