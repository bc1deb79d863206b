import { createTestDatabase, startAppProcess, type TestDatabase } from '@mrp/platform/testing';

describe('the cron-runner process', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('starts its scheduler with every task and exits 0 on SIGTERM', async () => {
    const runner = startAppProcess('cron-runner', {
      ...database.env,
      CRON_SCHEDULE_SEND_CALENDAR_REMINDERS: '*/10 * * * *',
      CRON_SCHEDULE_RETRY_FIELD_INDEXES: 'off',
    });
    const line = await runner.waitForLine(/cron-runner started/);
    expect((JSON.parse(line) as { tasks: string[] }).tasks).toEqual(
      expect.arrayContaining(['process-account-deletions (*/5 * * * *)', 'send-calendar-reminders (*/10 * * * *)', 'retry-field-indexes (off)']),
    );
    runner.child.kill('SIGTERM');
    await runner.waitForLine(/"msg":"cron-runner stopped"/);
    expect((await runner.exited).code).toBe(0);
  });

  it('refuses a CRON_SCHEDULE_* variable naming no task, in one line naming it', async () => {
    const runner = startAppProcess('cron-runner', { ...database.env, CRON_SCHEDULE_SEND_REMINDERS: '*/5 * * * *' });
    const { code, stderr } = await runner.exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/^cron-runner: configuration error: CRON_SCHEDULE_SEND_REMINDERS names no scheduled task \(known: CRON_SCHEDULE_PROCESS_ACCOUNT_DELETIONS, .*\)\n$/);
  });
});
