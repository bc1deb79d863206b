import { createTestDatabase, startAppProcess, type TestDatabase } from '@mrp/platform/testing';

describe('the cron-runner process', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('starts its scheduler with every task and exits 0 on SIGTERM', async () => {
    const runner = startAppProcess('apps/cron-runner/src/main.ts', { DATABASE_URL: database.url });
    const line = await runner.waitForLine(/cron-runner started/);
    expect((JSON.parse(line) as { tasks: string[] }).tasks).toEqual(
      expect.arrayContaining([expect.stringMatching(/^process-account-deletions /), expect.stringMatching(/^retry-field-indexes /)]),
    );
    runner.child.kill('SIGTERM');
    await runner.waitForLine(/"msg":"cron-runner stopped"/);
    expect((await runner.exited).code).toBe(0);
  });
});
