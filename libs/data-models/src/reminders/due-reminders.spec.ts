import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@mrp/platform';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import { indexName } from '../indexes/field-index';
import type { FieldOutput } from '../models/schemas';
import {
  claimDueReminders,
  claimStatement,
  listReminderFields,
  pruneReminderMarks,
  REMINDER_MARK_RETENTION_MINUTES,
  type ClaimedReminder,
  type ReminderField,
} from './due-reminders';

/** The moment the claims below are made at, so every boundary is exact. */
const NOW = '2030-06-01T12:00:00.000Z';
const at = (minutesFromNow: number) => new Date(Date.parse(NOW) + minutesFromNow * 60_000).toISOString();
const A_DAY_AGO = at(-24 * 60);

describe('due calendar reminders', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
  });
  afterAll(() => env.close());

  const owner = () => env.principal(org);
  const em = () => env.db.orm.em.fork() as EntityManager;

  /** A model of its own (marks and records never leak between tests) with a DATETIME field reminding at these offsets. */
  async function newModel(reminders: number[], options: { indexed?: boolean } = {}): Promise<ReminderField> {
    const key = `events_${newId().slice(-12).replace(/-/g, '')}`;
    await env.call('dataModels.create', { key, name: 'Events' }, owner());
    const field = await env.call<FieldOutput>(
      'dataModels.fields.create',
      { model: key, key: 'starts_at', name: 'Starts at', type: 'DATETIME', config: { reminders }, indexed: options.indexed ?? false },
      owner(),
    );
    expect(field.config).toEqual({ reminders: [...reminders].sort((a, b) => a - b) });
    const [{ id: modelId }] = await env.sql<{ id: string }>('SELECT id FROM data_models WHERE organization_id = ? AND key = ?', [org.id, key]);
    return { organizationId: org.id, modelId, modelKey: key, modelName: 'Events', fieldKey: 'starts_at', fieldName: 'Starts at', offsets: reminders };
  }

  /** A record written straight into the table, so its creation time can be set. */
  async function insertRecord(
    field: ReminderField,
    { value, title = `Event ${newId().slice(-6)}`, createdAt = A_DAY_AGO, createdBy = 'user-1' }: { value?: string; title?: string; createdAt?: string; createdBy?: string },
  ): Promise<string> {
    const id = newId();
    const data = value === undefined ? { title } : { title, [field.fieldKey]: value };
    await env.sql(
      `INSERT INTO records (id, organization_id, model_id, title, data, created_at, updated_at, created_by, updated_by)
       VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?)`,
      [id, field.organizationId, field.modelId, title, JSON.stringify(data), createdAt, createdAt, createdBy, createdBy],
    );
    return id;
  }

  const claim = (field: ReminderField, offset: number, options: { now?: string; limit?: number } = {}) =>
    claimDueReminders(em(), field, offset, { now: options.now ?? NOW, limit: options.limit ?? 1000 });
  const idsOf = (claimed: ClaimedReminder[]) => claimed.map((reminder) => reminder.recordId);

  it('lists the live DATETIME fields that carry reminders, with their offsets ascending', async () => {
    const field = await newModel([60, 0, 15]);
    await env.call('dataModels.fields.create', { model: field.modelKey, key: 'ends_at', name: 'Ends at', type: 'DATETIME' }, owner());
    await env.call('dataModels.fields.create', { model: field.modelKey, key: 'gone_at', name: 'Gone', type: 'DATETIME', config: { reminders: [5] } }, owner());
    await env.call('dataModels.fields.archive', { model: field.modelKey, key: 'gone_at' }, owner());
    const listed = (await listReminderFields(em())).filter((candidate) => candidate.modelId === field.modelId);
    expect(listed).toEqual([{ ...field, offsets: [0, 15, 60] }]);

    await env.call('dataModels.archive', { key: field.modelKey }, owner());
    expect((await listReminderFields(em())).filter((candidate) => candidate.modelId === field.modelId)).toEqual([]);
  });

  it('claims a reminder once its time has come, and at most an hour late', async () => {
    const field = await newModel([15]);
    const dueNow = await insertRecord(field, { value: at(15), title: 'Due now' });
    const minuteLate = await insertRecord(field, { value: at(14) });
    const nearlyHourLate = await insertRecord(field, { value: at(15 - 59) });
    await insertRecord(field, { value: at(16) }); // due in a minute
    await insertRecord(field, { value: at(15 - 60) }); // an hour late: too late
    await insertRecord(field, { value: at(-600) });
    await insertRecord(field, {}); // no value

    const claimed = await claim(field, 15);
    expect(idsOf(claimed)).toEqual([nearlyHourLate, minuteLate, dueNow]);
    expect(claimed[2]).toEqual({ recordId: dueNow, title: 'Due now', createdBy: 'user-1', value: at(15), remindAt: NOW });
  });

  it('at the time (offset 0) means when the value is reached', async () => {
    const field = await newModel([0]);
    const now = await insertRecord(field, { value: NOW });
    await insertRecord(field, { value: at(1) });
    expect(idsOf(await claim(field, 0))).toEqual([now]);
  });

  it('never claims a reminder whose time was before the record was created', async () => {
    const field = await newModel([15]);
    await insertRecord(field, { value: at(15 - 10), createdAt: at(-5) });
    const createdThen = await insertRecord(field, { value: at(15 - 5), createdAt: at(-5) });
    expect(idsOf(await claim(field, 15))).toEqual([createdThen]);
  });

  it("claims nothing of soft-deleted records, or of another model's", async () => {
    const field = await newModel([15]);
    const other = await newModel([15]);
    const deleted = await insertRecord(field, { value: at(15) });
    await env.sql('UPDATE records SET deleted_at = now() WHERE id = ?', [deleted]);
    const elsewhere = await insertRecord(other, { value: at(15) });
    expect(await claim(field, 15)).toEqual([]);
    expect(idsOf(await claim(other, 15))).toEqual([elsewhere]);
  });

  it('claims each reminder once; a changed value, or another offset, is a new reminder', async () => {
    const field = await newModel([15, 30]);
    const id = await insertRecord(field, { value: at(15) });
    expect(idsOf(await claim(field, 15))).toEqual([id]);
    expect(await claim(field, 15)).toEqual([]);
    expect(await claim(field, 15, { now: at(1) })).toEqual([]);

    await env.sql(`UPDATE records SET data = jsonb_set(data, '{starts_at}', to_jsonb(?::text)) WHERE id = ?`, [at(30), id]);
    expect(await claim(field, 15)).toEqual([]);
    expect(idsOf(await claim(field, 30))).toEqual([id]);
    expect(idsOf(await claim(field, 15, { now: at(15) }))).toEqual([id]);
    expect(await claim(field, 15, { now: at(15) })).toEqual([]);
    const marks = await env.sql<{ offset_minutes: number; due_value: string }>(
      `SELECT offset_minutes, to_char(due_value AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS due_value
         FROM record_reminders_sent WHERE record_id = ? ORDER BY due_value, offset_minutes`,
      [id],
    );
    expect(marks).toEqual([
      { offset_minutes: 15, due_value: at(15) },
      { offset_minutes: 15, due_value: at(30) },
      { offset_minutes: 30, due_value: at(30) },
    ]);
  });

  it('claims the oldest first, at most the limit a call', async () => {
    const field = await newModel([0]);
    const ids = [];
    for (const minutes of [-3, -1, -2, 0]) ids.push({ minutes, id: await insertRecord(field, { value: at(minutes) }) });
    const oldestFirst = ids.sort((a, b) => a.minutes - b.minutes).map((entry) => entry.id);
    expect(idsOf(await claim(field, 0, { limit: 3 }))).toEqual(oldestFirst.slice(0, 3));
    expect(idsOf(await claim(field, 0, { limit: 3 }))).toEqual(oldestFirst.slice(3));
  });

  it('claims each reminder once when two transactions claim at once', async () => {
    const field = await newModel([15]);
    const ids = [await insertRecord(field, { value: at(14) }), await insertRecord(field, { value: at(15) })];
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstClaimed!: () => void;
    const firstHasClaimed = new Promise<void>((resolve) => (firstClaimed = resolve));

    const first = em().transactional(async (tx) => {
      const claimed = await claimDueReminders(tx, field, 15, { now: NOW, limit: 1000 });
      firstClaimed();
      await firstMayCommit;
      return claimed;
    });
    await firstHasClaimed;
    // The second sees no committed mark, picks the same reminders and must wait on the first's marks.
    const second = em().transactional((tx) => claimDueReminders(tx, field, 15, { now: NOW, limit: 1000 }));
    await waitForLockWaiter(env);
    releaseFirst();
    expect(idsOf(await first)).toEqual(ids);
    expect(await second).toEqual([]);
    expect(await env.sql('SELECT count(*)::int AS n FROM record_reminders_sent WHERE record_id = ANY(?::uuid[])', [`{${ids.join(',')}}`])).toEqual([{ n: 2 }]);
  });

  it("drops a record's marks when the record is purged", async () => {
    const field = await newModel([15]);
    const id = await insertRecord(field, { value: at(15) });
    await claim(field, 15);
    await env.sql('DELETE FROM records WHERE id = ?', [id]);
    expect(await env.sql('SELECT 1 FROM record_reminders_sent WHERE record_id = ?', [id])).toEqual([]);
  });

  it('forgets only marks too old to ever be due again', async () => {
    const field = await newModel([0]);
    const id = await insertRecord(field, { value: at(0) });
    const old = new Date(Date.now() - (REMINDER_MARK_RETENTION_MINUTES + 5) * 60_000).toISOString();
    const recent = new Date(Date.now() - (REMINDER_MARK_RETENTION_MINUTES - 5) * 60_000).toISOString();
    await env.sql(
      `INSERT INTO record_reminders_sent (record_id, field_key, offset_minutes, due_value, remind_at)
       VALUES (?, 'starts_at', 0, ?, ?), (?, 'starts_at', 1, ?, ?)`,
      [id, old, old, id, recent, recent],
    );
    expect(await pruneReminderMarks(em(), 1000)).toBeGreaterThanOrEqual(1);
    expect(await env.sql('SELECT offset_minutes FROM record_reminders_sent WHERE record_id = ?', [id])).toEqual([{ offset_minutes: 1 }]);
  });

  it("uses an indexed field's expression index (EXPLAIN)", async () => {
    const field = await newModel([15], { indexed: true });
    await env.sql(
      `INSERT INTO records (id, organization_id, model_id, title, data, created_at, created_by, updated_by)
       SELECT gen_random_uuid(), ?, ?, 'Event ' || g,
         jsonb_build_object('title', 'Event ' || g,
           'starts_at', to_char(timestamptz '2030-01-01' + g * interval '1 hour', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
         timestamptz '2029-01-01', 'seed', 'seed'
       FROM generate_series(1, 5000) g`,
      [field.organizationId, field.modelId],
    );
    await env.sql('ANALYZE records');
    const [{ id: fieldId }] = await env.sql<{ id: string }>('SELECT id FROM data_fields WHERE model_id = ? AND key = ?', [field.modelId, field.fieldKey]);
    const [{ status }] = await env.sql<{ status: string }>('SELECT index_status AS status FROM data_fields WHERE id = ?', [fieldId]);
    expect(status).toBe('ready');
    const statement = claimStatement(field, 15, { now: NOW, limit: 1000 });
    const plan = await em().transactional(async (tx) => {
      await tx.execute('SET LOCAL enable_seqscan = off');
      const rows = await tx.execute<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${statement.text}`, [...statement.params]);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain(`Index Scan using ${indexName(fieldId)}`);
    // And the claim works through it: 2030-06-01 12:15 (its value 12:00) is hour 3636 of the seeded series.
    expect((await claim(field, 15)).map((reminder) => reminder.title)).toEqual(['Event 3636']);
  });
});

/** Resolves once a session of the test database waits for a lock (the second claim, on the first's marks). */
async function waitForLockWaiter(env: DataModelsTestEnv, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ waiting }] = await env.sql<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (waiting > 0) return;
    if (Date.now() > deadline) throw new Error('The second claim never waited for the first');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
