import { Client } from 'pg';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import { scheduleVariable } from '@mrp/runtime';

const TASK = 'prune-idempotent-requests';
const EXPIRED_ANSWERS = 3;

describe('a cron-runner stopped by SIGTERM while a task runs', () => {
  let database: TestDatabase;
  let locker: Client;
  let observer: Client;
  const runners: AppProcess[] = [];

  // A database of each test's own: a schedule written by a runner of the test before has had its
  // slot, and this test's runner would wait for the next minute's.
  beforeEach(async () => {
    database = await createTestDatabase();
    locker = new Client({ connectionString: database.directUrl });
    observer = new Client({ connectionString: database.directUrl });
    await Promise.all([locker.connect(), observer.connect()]);
  });
  afterEach(async () => {
    for (const runner of runners.splice(0)) if (runner.child.exitCode === null && runner.child.signalCode === null) runner.child.kill('SIGKILL');
    await Promise.all([locker.end(), observer.end()]);
    await database.drop();
  });

  /** A runner whose only task is stuck mid-run on the locker's row lock, until the locker lets go. */
  async function runnerStuckInTask(env: Record<string, string> = {}): Promise<AppProcess> {
    await locker.query(
      `INSERT INTO idempotent_requests (credential_id, key, request_hash, status, expires_at)
       SELECT 'credential', 'key-' || n || '-' || gen_random_uuid(), 'hash', 200, now() - interval '1 hour' FROM generate_series(1, $1::int) AS n`,
      [EXPIRED_ANSWERS],
    );
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM idempotent_requests FOR UPDATE');
    const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const scheduleEnv: Record<string, string> = {};
    for (const task of ['process-account-deletions', 'prune-rate-limit-buckets', 'sweep-webhook-deliveries', 'prune-webhook-deliveries', 'run-automation-schedules', 'send-calendar-reminders', 'retry-field-indexes']) {
      scheduleEnv[scheduleVariable(task)] = 'off';
    }
    // Every minute: the slot at start comes at once.
    scheduleEnv[scheduleVariable(TASK)] = '* * * * *';
    const runner = startAppProcess('cron-runner', { ...database.env, LOG_LEVEL: 'debug', ...scheduleEnv, ...env });
    runners.push(runner);
    await runner.waitForLine(/cron-runner started/, 90_000);
    await runner.waitForLine(new RegExp(`"task":"${TASK}".*"msg":"task started"`), 60_000);
    const deadline = Date.now() + 40_000;
    for (;;) {
      const { rows } = await observer.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) AND query LIKE '%DELETE FROM idempotent_requests%'",
        [lockerPid],
      );
      if (rows[0].count > 0) return runner;
      if (Date.now() > deadline) throw new Error('the task never waited on the lock');
      await new Promise((wait) => setTimeout(wait, 50));
    }
  }

  it('lets the task finish, then exits 0', async () => {
    const runner = await runnerStuckInTask();
    runner.child.kill('SIGTERM');
    await runner.waitForLine(/"msg":"cron-runner stopping"/);
    // It waits for the task: still there a second later.
    await new Promise((wait) => setTimeout(wait, 1_000));
    expect(runner.child.exitCode).toBeNull();
    await locker.query('COMMIT');
    const ran = JSON.parse(await runner.waitForLine(new RegExp(`"task":"${TASK}".*"msg":"task ran"`))) as { processed: number };
    expect(ran.processed).toBe(EXPIRED_ANSWERS);
    expect((await runner.exited).code).toBe(0);
  }, 180_000);

  it('stops waiting once SHUTDOWN_TIMEOUT_SECONDS has run out, and still exits 0', async () => {
    const runner = await runnerStuckInTask({ SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const signalled = Date.now();
    runner.child.kill('SIGTERM');
    const { code } = await runner.exited;
    expect(code).toBe(0);
    // The bound, then closing: never the force-exit.
    expect(Date.now() - signalled).toBeLessThan(6_500);
    expect(runner.output().stdout).not.toMatch(/did not stop within/);
    expect(runner.output().stdout).toMatch(/database connections still in use by work that was cut off/);
  }, 180_000);
});
