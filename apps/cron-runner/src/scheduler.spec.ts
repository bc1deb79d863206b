import { loadConfig } from '@mrp/platform';
import { capturedLogger, createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { createRuntime, resolveTaskSchedules, type Runtime, type ScheduledTask } from '@mrp/runtime';
import { runTaskJob, scheduleTasks } from './scheduler';

function countingTask(name = 'counts'): ScheduledTask & { runs: number } {
  const task = { name, schedule: '* * * * *', description: name, runs: 0, run: async () => ++task.runs };
  return task;
}

describe('runTaskJob', () => {
  it('logs each run with its task, count, duration and job; a failing task is logged and does not throw', async () => {
    const { logger, lines } = capturedLogger('debug');
    const runtime = { logger } as unknown as Runtime;
    const counts = countingTask();
    const fails: ScheduledTask = { name: 'fails', schedule: '* * * * *', description: 'fails', run: async () => Promise.reject(new Error('boom')) };

    expect(await Promise.all([runTaskJob(runtime, fails, { id: 'job-1' }), runTaskJob(runtime, counts, { id: 'job-2' })])).toEqual(['failed', 'ran']);
    expect(await runTaskJob(runtime, counts, { id: 'job-3' })).toBe('ran');

    expect(counts.runs).toBe(2);
    expect(lines.filter((line) => line.msg === 'task started').map((line) => line.job)).toEqual(['job-1', 'job-2', 'job-3']);
    expect(lines.filter((line) => line.msg === 'task ran')).toEqual([
      expect.objectContaining({ task: 'counts', processed: 1, durationMs: expect.any(Number), job: 'job-2' }),
      expect.objectContaining({ task: 'counts', processed: 2, durationMs: expect.any(Number), job: 'job-3' }),
    ]);
    const failed = lines.filter((line) => line.msg === 'task failed');
    expect(failed).toEqual([expect.objectContaining({ task: 'fails', job: 'job-1', err: expect.objectContaining({ message: 'boom' }) })]);
  });
});

describe('scheduleTasks', () => {
  let database: TestDatabase;
  let runtime: Runtime;
  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({ NODE_ENV: 'test', ...database.env, LOG_LEVEL: 'silent' });
    runtime = await createRuntime(config, { name: 'cron-test', poolSize: 2 });
  });
  afterAll(async () => {
    await runtime.close();
    await database.drop();
  });

  it('schedules every task on the queue the migrations made for it, and refuses a task that has none', async () => {
    await expect(scheduleTasks(runtime, resolveTaskSchedules(runtime.tasks, { CRON_SCHEDULE_RETRY_FIELD_INDEXES: 'off' }))).resolves.toBeUndefined();
    await expect(scheduleTasks(runtime, [{ task: countingTask('no-queue'), schedule: '* * * * *' }])).rejects.toThrow(/task\.no-queue not found/);
  });
});
