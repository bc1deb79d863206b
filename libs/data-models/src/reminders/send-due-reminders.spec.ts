import { Client } from 'pg';
import { invokeProcedure, newId, ProcedureRegistry, sqlTextArray, systemPrincipal } from '@mrp/platform';
import { flagsAllOff, silentLogger } from '@mrp/platform/testing';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import { createDataModelsProcedures } from '../procedures';
import { REMINDER_NOTIFICATION_KIND } from './reminder-message';
import { SEND_CALENDAR_REMINDERS } from './send-due-reminders-procedure';

const PROCEDURE = 'dataModels.reminders.sendDue';
const task = () => systemPrincipal('send-calendar-reminders', { permissions: [SEND_CALENDAR_REMINDERS] });

/**
 * The task's procedure end to end on real rows: who hears of a due reminder (only a person who
 * could read the record now), what they read, and that each reminder is sent once.
 */
describe('dataModels.reminders.sendDue', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  let modelId: string;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization(['no-records']);
    await env.sql('UPDATE roles SET permissions = ?::text[] WHERE organization_id = ? AND key IN (?, ?)', [
      sqlTextArray(['records.read', 'records.create']),
      org.id,
      'member',
      'admin',
    ]);
    await env.sql('UPDATE roles SET permissions = ?::text[] WHERE id = ?', [sqlTextArray(['data-models.read']), org.roles['no-records']]);
    await env.call('dataModels.create', { key: 'meetings', name: 'Meetings' }, env.principal(org));
    await env.call(
      'dataModels.fields.create',
      { model: 'meetings', key: 'starts_at', name: 'Starts at', type: 'DATETIME', config: { reminders: [15] } },
      env.principal(org),
    );
    [{ id: modelId }] = await env.sql<{ id: string }>(`SELECT id FROM data_models WHERE organization_id = ? AND key = 'meetings'`, [org.id]);
  });
  afterAll(() => env.close());
  beforeEach(() => {
    env.notifications.length = 0;
  });

  const run = () => env.call<{ processed: number }>(PROCEDURE, {}, task());

  /** A user of the organization holding these roles (none: not a member). */
  async function newUser(options: { kind?: 'HUMAN' | 'SERVICE'; roles?: string[]; state?: 'disabled_at' | 'deleted_at' } = {}): Promise<string> {
    const kind = options.kind ?? 'HUMAN';
    const id = kind === 'SERVICE' ? `svc_${newId().replace(/-/g, '')}` : newId();
    await env.sql(`INSERT INTO users (id, email, kind, display_name) VALUES (?, ?, ?, 'Someone')`, [id, `${id}@example.test`, kind]);
    if (options.state) await env.sql(`UPDATE users SET ${options.state} = now() WHERE id = ?`, [id]);
    if (options.roles) {
      const membershipId = newId();
      await env.sql('INSERT INTO memberships (id, organization_id, user_id) VALUES (?, ?, ?)', [membershipId, org.id, id]);
      for (const role of options.roles) {
        await env.sql(`INSERT INTO role_grants (id, membership_id, role_id, granted_by) VALUES (?, ?, ?, 'test')`, [newId(), membershipId, org.roles[role]]);
      }
    }
    return id;
  }

  /** A meeting whose 15-minute reminder came due a minute ago (by the database's clock), created yesterday. */
  async function dueMeeting(createdBy: string, title = `Meeting ${newId().slice(-6)}`): Promise<{ id: string; startsAt: string }> {
    const id = newId();
    const [{ starts_at: startsAt }] = await env.sql<{ starts_at: string }>(
      `SELECT to_char((now() + interval '14 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS starts_at`,
    );
    await env.sql(
      `INSERT INTO records (id, organization_id, model_id, title, data, created_at, created_by, updated_by)
       VALUES (?, ?, ?, ?, ?::jsonb, now() - interval '1 day', ?, ?)`,
      [id, org.id, modelId, title, JSON.stringify({ title, starts_at: startsAt }), createdBy, createdBy],
    );
    return { id, startsAt };
  }

  it("tells the record's creator, naming the record, the field, the time and the organization, once", async () => {
    const ada = await newUser({ roles: ['member'] });
    const meeting = await dueMeeting(ada, 'Quarterly review');
    expect(await run()).toEqual({ processed: 1 });
    expect(env.notifications).toEqual([
      {
        userIds: [ada],
        message: {
          kind: REMINDER_NOTIFICATION_KIND,
          title: 'Reminder: Quarterly review',
          body: `Starts at (Meetings): ${meeting.startsAt}, reminder 15 minutes before`,
          data: { organizationId: org.id, model: 'meetings', recordId: meeting.id, field: 'starts_at', at: meeting.startsAt, minutesBefore: 15 },
          organizationId: org.id,
        },
      },
    ]);
    expect(await run()).toEqual({ processed: 0 });
    expect(env.notifications).toHaveLength(1);
  });

  it('tells nobody who could not read the record now', async () => {
    const creators = [
      await newUser({ kind: 'SERVICE', roles: ['member'] }),
      await newUser({}), // not a member (left, or never was)
      await newUser({ roles: ['member'], state: 'disabled_at' }),
      await newUser({ roles: ['member'], state: 'deleted_at' }),
      await newUser({ roles: ['no-records'] }),
      'system:some-task',
    ];
    for (const creator of creators) await dueMeeting(creator);
    const restrictedCreator = await newUser({ roles: ['member'] });
    const restricted = await dueMeeting(restrictedCreator);
    await env.sql('INSERT INTO record_access (record_id, role_id) VALUES (?, ?)', [restricted.id, org.roles.admin]);
    const admin = await newUser({ roles: ['admin'] });
    const allowed = await dueMeeting(admin);
    await env.sql('INSERT INTO record_access (record_id, role_id) VALUES (?, ?)', [allowed.id, org.roles.admin]);

    expect(await run()).toEqual({ processed: 1 });
    expect(env.notifications.map((notification) => [notification.userIds, notification.message.data?.['recordId']])).toEqual([[[admin], allowed.id]]);
    // Each was claimed all the same: nobody hears of it later, whatever changes.
    expect(await env.sql('SELECT 1 FROM record_reminders_sent WHERE record_id = ?', [restricted.id])).toHaveLength(1);
  });

  it('sends nothing when the notification cannot be written, and sends it on the next run', async () => {
    const bea = await newUser({ roles: ['member'] });
    const meeting = await dueMeeting(bea);
    const failing = new ProcedureRegistry(
      createDataModelsProcedures({
        cursorSecret: env.cursorSecret,
        notifier: {
          notify: async () => {
            throw new Error('the inbox is unreachable');
          },
        },
      }),
    );
    await expect(
      invokeProcedure(failing.require(PROCEDURE), {}, { em: env.db.orm.em.fork(), principal: task(), correlationId: 'test-failing' }, {
        dispatcher: env.dispatcher,
        logger: silentLogger,
        flags: flagsAllOff,
      }),
    ).rejects.toThrow('the inbox is unreachable');
    expect(await env.sql('SELECT 1 FROM record_reminders_sent WHERE record_id = ?', [meeting.id])).toEqual([]);
    expect(await run()).toEqual({ processed: 1 });
    expect(env.notifications.map((notification) => notification.userIds)).toEqual([[bea]]);
  });

  it('returns at once while another run is under way, and leaves the work to it', async () => {
    const cleo = await newUser({ roles: ['member'] });
    await dueMeeting(cleo);
    const other = new Client({ connectionString: env.db.database.directUrl });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('data-models.calendar-reminders'), 0)`);
      expect(await run()).toEqual({ processed: 0 });
      await other.query(`SELECT pg_advisory_unlock(hashtext('data-models.calendar-reminders'), 0)`);
    } finally {
      await other.end();
    }
    expect(await run()).toEqual({ processed: 1 });
  });

  it('exists for its own system principal only', async () => {
    await expect(env.call(PROCEDURE, {}, systemPrincipal('retry-field-indexes', { permissions: ['system.retry-field-indexes'] }))).rejects.toMatchObject({
      code: 'forbidden',
    });
    // To a person, even one holding every permission, it does not exist.
    await expect(env.call(PROCEDURE, {}, env.principal(org))).rejects.toMatchObject({ code: 'not_found' });
  });
});
