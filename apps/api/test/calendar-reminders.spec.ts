import type { CreatedApiKey } from '@mrp/authz';
import { startTestApi, type ErrorBody, type TestApi } from './support/test-api';
import { createOrganizationWithKey, publicApi, queryDatabase, rpcOk, type Member, type OrganizationWithKey } from './support/public-api-fixtures';

const CRON_SECRET = 'cron-secret-for-tests-0123456789';
const MINUTE = 60_000;

interface TaskResult {
  task: string;
  processed: number;
}

interface NotificationView {
  kind: string;
  title: string;
  body: string | null;
  data: Record<string, unknown>;
}

interface RecordView {
  id: string;
  createdAt: string;
}

/**
 * `/cron/send-calendar-reminders` over real HTTP, with a second api process on the same database.
 * Time is never waited for: a reminder is due as soon as its time (value minus offset) has come,
 * and not before the record was created, so each record is created first and its date then set to
 * its creation time plus the offset: that reminder is due at once.
 */
describe('/cron/send-calendar-reminders', () => {
  let api: TestApi;
  let secondProcess: TestApi;
  let org: OrganizationWithKey;
  let otherOrg: OrganizationWithKey;
  let member: Member;
  let robot: CreatedApiKey;
  let robotId: string;

  beforeAll(async () => {
    api = await startTestApi({ FEATURE_FLAGS: 'public-api.enabled=true,public-api.service-accounts=true' });
    secondProcess = await startTestApi({}, { database: api.database });
    org = await createOrganizationWithKey(api);
    await org.rpc('dataModels.create', { key: 'meetings', name: 'Meetings' });
    await org.rpc('dataModels.fields.create', {
      model: 'meetings',
      key: 'starts_at',
      name: 'Starts at',
      type: 'DATETIME',
      config: { reminders: [30, 15] },
      indexed: true,
    });
    member = await org.addMember(['member'], 'planner');
    const account = await org.rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Importer', roleKeys: ['member'] });
    robotId = account.id;
    robot = await org.rpc<CreatedApiKey>('serviceAccounts.keys.create', { serviceAccountId: account.id, name: 'importer', fullAccess: true });

    // The member also belongs to another organization, which must hear nothing of these reminders.
    otherOrg = await createOrganizationWithKey(api);
    const { token } = await otherOrg.rpc<{ token: string }>('organizations.invite', { email: member.user.email, roleKeys: ['member'] });
    await rpcOk(api, 'organizations.acceptInvite', { token }, { token: member.session });
    for (const organization of [org, otherOrg]) {
      await organization.rpc('webhooks.endpoints.create', { url: 'http://127.0.0.1:9/', subscriptions: ['notification.created'] });
    }
  });
  afterAll(async () => {
    await secondProcess.close();
    await api.close();
  });

  const runTask = async (on: TestApi = api): Promise<TaskResult> => {
    const response = await on.request('/cron/send-calendar-reminders', { method: 'POST', headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as TaskResult;
  };
  const plus = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * MINUTE).toISOString();

  const createMeeting = (title: string) => org.rpc<RecordView>('records.create', { model: 'meetings', data: { title } }, member.session);
  const setStart = (id: string, startsAt: string) => org.rpc<RecordView>('records.update', { id, data: { starts_at: startsAt } }, member.session);
  const remindersOf = async (session: string) =>
    (await rpcOk<{ items: NotificationView[] }>(api, 'notifications.list', {}, { token: session })).items.filter(
      (item) => item.kind === 'data-models.record-reminder',
    );

  it('refuses a reminders configuration that breaks the rules, naming each problem', async () => {
    const { status, body } = await api.rpc<ErrorBody>(
      'dataModels.fields.create',
      { model: 'meetings', key: 'ends_at', name: 'Ends at', type: 'DATETIME', config: { reminders: [10, 10, -5, 50000, 'soon'] } },
      { token: org.owner.session, organizationId: org.organizationId },
    );
    expect(status).toBe(400);
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details?.map(({ field, code }) => ({ field, code }))).toEqual([
      { field: 'config.reminders[2]', code: 'out_of_range' },
      { field: 'config.reminders[3]', code: 'out_of_range' },
      { field: 'config.reminders[4]', code: 'invalid_type' },
    ]);
    const update = await api.rpc<ErrorBody>(
      'dataModels.fields.update',
      { model: 'meetings', key: 'starts_at', config: { reminders: [1, 2, 3, 4, 5, 6] } },
      { token: org.owner.session, organizationId: org.organizationId },
    );
    expect(update.status).toBe(400);
    expect(update.body.error.details).toEqual([
      { field: 'config.reminders', code: 'too_long', message: 'config.reminders must contain at most 5 items.' },
    ]);
    const fields = await (await publicApi(api, org.key.token).get('/models/meetings/fields')).json();
    expect((fields as { items: Array<{ key: string; config: unknown }> }).items.find((field) => field.key === 'starts_at')?.config).toEqual({
      reminders: [15, 30],
    });
  });

  it("notifies the creator once per reminder, across processes; a new date is a new reminder; a purge takes the marks", async () => {
    const kickOff = await createMeeting('Kick-off');
    await setStart(kickOff.id, plus(kickOff.createdAt, 15)); // the 15-minute reminder is due now; the 30-minute one was due before the record existed

    const cancelled = await createMeeting('Cancelled');
    await setStart(cancelled.id, plus(cancelled.createdAt, 15));
    await org.rpc('records.delete', { id: cancelled.id }, member.session);

    const imported = (await (await publicApi(api, robot.token).post('/models/meetings/records', { data: { title: 'Imported' } })).json()) as RecordView;
    const patched = await publicApi(api, robot.token).patch(`/records/${imported.id}`, { data: { starts_at: plus(imported.createdAt, 15) } });
    expect(patched.status).toBe(200);

    const backdated = await createMeeting('Long ago');
    await setStart(backdated.id, plus(backdated.createdAt, -24 * 60));

    // Two runs at once, in two api processes: the reminder is sent once.
    const results = await Promise.all([runTask(api), runTask(secondProcess)]);
    expect(results.map((result) => result.task)).toEqual(['send-calendar-reminders', 'send-calendar-reminders']);
    expect(results[0].processed + results[1].processed).toBe(1);

    const startsAt = plus(kickOff.createdAt, 15);
    expect(await remindersOf(member.session)).toEqual([
      expect.objectContaining({
        title: 'Reminder: Kick-off',
        body: `Starts at (Meetings): ${startsAt}, reminder 15 minutes before`,
        data: { organizationId: org.organizationId, model: 'meetings', recordId: kickOff.id, field: 'starts_at', at: startsAt, minutesBefore: 15 },
      }),
    ]);
    expect(await queryDatabase(api, 'SELECT id FROM notifications WHERE user_id = $1', [robotId])).toEqual([]);
    expect(await runTask()).toEqual({ task: 'send-calendar-reminders', processed: 0 });

    // The meeting moves: the 30-minute reminder of the new time is due now, and sent; the old time's stays sent.
    const movedTo = plus(kickOff.createdAt, 30);
    await setStart(kickOff.id, movedTo);
    expect(await runTask(secondProcess)).toEqual({ task: 'send-calendar-reminders', processed: 1 });
    expect(await runTask()).toEqual({ task: 'send-calendar-reminders', processed: 0 });
    const reminders = await remindersOf(member.session);
    expect(reminders.map((reminder) => [reminder.data.at, reminder.data.minutesBefore])).toEqual([
      [movedTo, 30],
      [startsAt, 15],
    ]);

    // Each notification.created is the meeting organization's: queued for its endpoint, never the other's.
    const deliveries = await queryDatabase<{ organization_id: string; count: number }>(
      api,
      `SELECT d.organization_id, count(*)::int AS count FROM webhook_deliveries d
        WHERE d.event_type = 'notification.created' GROUP BY d.organization_id`,
    );
    expect(deliveries).toEqual([{ organization_id: org.organizationId, count: 2 }]);

    await org.rpc('records.delete', { id: kickOff.id, hard: true });
    expect(await queryDatabase(api, 'SELECT 1 FROM record_reminders_sent WHERE record_id = $1', [kickOff.id])).toEqual([]);
  });

  it('answers 401 to a wrong secret', async () => {
    const response = await api.request('/cron/send-calendar-reminders', { headers: { Authorization: 'Bearer not-the-cron-secret-0123' } });
    expect(response.status).toBe(401);
  });
});
