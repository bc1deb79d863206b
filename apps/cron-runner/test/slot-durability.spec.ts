import { Client } from 'pg';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import { scheduleVariable } from '@mrp/runtime';

const TASK = 'prune-idempotent-requests';
const EXPIRED_ANSWERS = 3;

interface LogLine {
  msg: string;
  task?: string;
  job?: string;
  processed?: number;
}

const linesOf = (app: AppProcess): LogLine[] =>
  app
    .output()
    .stdout.split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

describe('a scheduled slot survives a killed cron-runner', () => {
  let database: TestDatabase;
  let locker: Client;
  // Watches from its own session, one statement per transaction: a transaction keeps its first
  // view of pg_stat_activity (each session's query and state) until it ends, so the locker, in
  // its transaction, would go on seeing the task's connection as it was at its first look.
  let observer: Client;
  const runners: AppProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    locker = new Client({ connectionString: database.directUrl });
    observer = new Client({ connectionString: database.directUrl });
    await Promise.all([locker.connect(), observer.connect()]);
  });
  afterAll(async () => {
    for (const runner of runners) if (runner.child.exitCode === null && runner.child.signalCode === null) runner.child.kill('SIGKILL');
    await Promise.all([locker.end(), observer.end()]);
    await database.drop();
  });

  it('runs exactly once, on the other runner, when the runner running it is SIGKILLed mid-task', async () => {
    await locker.query(
      `INSERT INTO idempotent_requests (credential_id, key, request_hash, status, expires_at)
       SELECT 'credential', 'key-' || n, 'hash', 200, now() - interval '1 hour' FROM generate_series(1, $1::int) AS n`,
      [EXPIRED_ANSWERS],
    );
    // The task's DELETE waits on this lock: the runner that takes the slot is stuck mid-task.
    await locker.query('BEGIN');
    await locker.query("SELECT 1 FROM idempotent_requests WHERE key = 'key-1' FOR UPDATE");
    const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const waitingOnLock = async () =>
      (
        await observer.query<{ count: number }>(
          "SELECT count(*)::int AS count FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) AND query LIKE '%DELETE FROM idempotent_requests%'",
          [lockerPid],
        )
      ).rows[0].count;
    // Nothing waits yet. (Looked at from the locker's transaction, this first look would be all it ever saw.)
    expect(await waitingOnLock()).toBe(0);

    const env: Record<string, string> = {
      ...database.env,
      LOG_LEVEL: 'debug',
      // Past the time it takes to see the run stuck and kill it, even on a busy machine: a run
      // past its expiry is given up by pg-boss in its own process too.
      CRON_TASK_EXPIRY_SECONDS: '45',
      JOB_MAINTENANCE_INTERVAL_SECONDS: '1',
      // Every minute, and nothing else: the slot at start comes at once.
      [scheduleVariable(TASK)]: '* * * * *',
    };
    for (const other of ['process-account-deletions', 'prune-rate-limit-buckets', 'sweep-webhook-deliveries', 'prune-webhook-deliveries', 'run-automation-schedules', 'send-calendar-reminders', 'retry-field-indexes']) {
      env[scheduleVariable(other)] = 'off';
    }
    const started = new RegExp(`"task":"${TASK}".*"msg":"task started"`);
    const a = startAppProcess('cron-runner', env);
    const b = startAppProcess('cron-runner', env);
    runners.push(a, b);
    // Two starts at once on a busy machine take a while.
    await Promise.all([a.waitForLine(/cron-runner started/, 90_000), b.waitForLine(/cron-runner started/, 90_000)]);

    const victim = await Promise.race([a.waitForLine(started, 60_000).then(() => a), b.waitForLine(started, 60_000).then(() => b)]);
    const survivor = victim === a ? b : a;
    const job = linesOf(victim).find((line) => line.msg === 'task started' && line.task === TASK)?.job;
    expect(job).toEqual(expect.any(String));
    // Its statement is waiting on our lock.
    const deadline = Date.now() + 40_000;
    while ((await waitingOnLock()) === 0) {
      if (Date.now() > deadline) {
        const activity = await observer.query(
          'SELECT pid, state, wait_event_type, wait_event, pg_blocking_pids(pid) AS blocked_by, left(query, 120) AS query FROM pg_stat_activity WHERE datname = current_database()',
        );
        const taskLines = linesOf(victim).filter((line) => line.task === TASK);
        throw new Error(`the task did not wait on the lock; sessions: ${JSON.stringify(activity.rows)}; its lines: ${JSON.stringify(taskLines)}`);
      }
      await new Promise((wait) => setTimeout(wait, 50));
    }

    victim.child.kill('SIGKILL');
    await victim.exited;
    // The dead runner's statement may now finish, but its transaction never commits.
    await locker.query('ROLLBACK');

    const ranLine = new RegExp(`"task":"${TASK}".*"job":"${job}".*"msg":"task ran"`);
    const ran = JSON.parse(await survivor.waitForLine(ranLine, 90_000)) as LogLine;
    expect(ran.processed).toBe(EXPIRED_ANSWERS);
    await expect(locker.query('SELECT count(*)::int AS count FROM idempotent_requests')).resolves.toMatchObject({ rows: [{ count: 0 }] });

    const runsOfSlot = [...linesOf(victim), ...linesOf(survivor)].filter((line) => line.msg === 'task ran' && line.job === job);
    expect(runsOfSlot).toHaveLength(1);
    expect(linesOf(victim).filter((line) => line.msg === 'task ran')).toEqual([]);
  }, 240_000);
});
