import { loadConfig, type TaskSlotClaims } from '@mrp/platform';
import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { createRuntime, type Runtime, type ScheduledTask } from '@mrp/runtime';
import { startScheduler } from './scheduler';
import { capturedLogger } from '@mrp/platform/testing';

/** A recent minute: claims are pruned a day after their slot, so a fixed date would stop working a day later. */
const SLOT = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000);
const NEXT_SLOT = new Date(SLOT.getTime() + 60_000);
const everyoneClaims: TaskSlotClaims = { claim: async () => true };

function countingTask(name = 'counts'): ScheduledTask & { runs: number } {
  const task = { name, schedule: '* * * * *', description: name, runs: 0, run: async () => ++task.runs };
  return task;
}

describe('startScheduler', () => {
  it('logs each run with its task, count, duration and slot; a failing task neither stops nor delays the others', async () => {
    const { logger, lines } = capturedLogger('debug');
    const runtime = { logger } as unknown as Runtime;
    const counts = countingTask();
    const fails: ScheduledTask = { name: 'fails', schedule: '* * * * *', description: 'fails', run: async () => Promise.reject(new Error('boom')) };
    const scheduler = startScheduler(runtime, [], { claims: everyoneClaims, startTimers: false });

    expect(await Promise.all([scheduler.runSlot(fails, SLOT), scheduler.runSlot(counts, new Date(SLOT.getTime() + 59_999))])).toEqual(['failed', 'ran']);
    expect(await scheduler.runSlot(fails, new Date(SLOT.getTime() + 60_000))).toBe('failed');
    expect(await scheduler.runSlot(counts, new Date(SLOT.getTime() + 60_000))).toBe('ran');
    await scheduler.stop();

    expect(counts.runs).toBe(2);
    const ran = lines.filter((line) => line.msg === 'task ran');
    expect(ran).toEqual([
      expect.objectContaining({ task: 'counts', processed: 1, durationMs: expect.any(Number), slot: SLOT.toISOString() }),
      expect.objectContaining({ task: 'counts', processed: 2, durationMs: expect.any(Number), slot: NEXT_SLOT.toISOString() }),
    ]);
    const failed = lines.filter((line) => line.msg === 'task failed');
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({ task: 'fails', slot: SLOT.toISOString(), err: expect.objectContaining({ message: 'boom' }) });
  });

  it('skips a slot another scheduler claimed, at debug level', async () => {
    const { logger, lines } = capturedLogger('debug');
    const counts = countingTask();
    const scheduler = startScheduler({ logger } as unknown as Runtime, [], { claims: { claim: async () => false }, startTimers: false });
    expect(await scheduler.runSlot(counts, SLOT)).toBe('skipped');
    expect(counts.runs).toBe(0);
    expect(lines).toEqual([expect.objectContaining({ level: 20, task: 'counts', msg: 'task slot claimed elsewhere, skipped' })]);
  });

  it('fires a task on its cron schedule and not after stop; leaves out a task whose schedule is off', async () => {
    const { logger } = capturedLogger('debug');
    const counts = countingTask();
    const off = countingTask('off');
    const fired: Date[] = [];
    const claims: TaskSlotClaims = {
      async claim(_task, slot) {
        fired.push(slot);
        return true;
      },
    };
    // Croner fires a 6-field expression every second; the cron-runner itself only accepts 5 fields.
    const scheduler = startScheduler({ logger } as unknown as Runtime, [
      { task: counts, schedule: '* * * * * *' },
      { task: off, schedule: null },
    ], { claims });
    while (counts.runs === 0) await new Promise((wake) => setTimeout(wake, 50));
    await scheduler.stop();
    const runsAtStop = counts.runs;
    expect(fired.length).toBeGreaterThan(0);
    await new Promise((wake) => setTimeout(wake, 1100));
    expect(counts.runs).toBe(runsAtStop);
    expect(off.runs).toBe(0);
  });

  describe('two schedulers on one database', () => {
    let database: TestDatabase;
    let runtimes: Runtime[];
    beforeAll(async () => {
      database = await createTestDatabase();
      const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
      runtimes = [await createRuntime(config, { name: 'cron-a', poolSize: 2 }), await createRuntime(config, { name: 'cron-b', poolSize: 2 })];
    });
    afterAll(async () => {
      await Promise.all(runtimes.map((runtime) => runtime.close()));
      await database.drop();
    });

    it('run a task once per slot, whichever fires first, and both run the next slot once again; claims older than a day go', async () => {
      await runtimes[0].orm.em
        .fork()
        .execute("INSERT INTO scheduled_task_slots (task, slot, claimed_by) VALUES ('old', now() - interval '25 hours', 'gone'), ('recent', now() - interval '23 hours', 'kept')");
      const counts = countingTask('two-runner-check');
      const [a, b] = runtimes.map((runtime) => startScheduler(runtime, [], { startTimers: false }));
      const firstSlot = await Promise.all([a.runSlot(counts, SLOT), b.runSlot(counts, new Date(SLOT.getTime() + 1_500))]);
      expect(firstSlot.sort()).toEqual(['ran', 'skipped']);
      const nextSlot = await Promise.all([b.runSlot(counts, new Date(SLOT.getTime() + 60_000)), a.runSlot(counts, new Date(SLOT.getTime() + 60_010))]);
      expect(nextSlot.sort()).toEqual(['ran', 'skipped']);
      expect(counts.runs).toBe(2);
      const rows = await runtimes[0].orm.em
        .fork()
        .execute<Array<{ slot: Date; claimed_by: string }>>('SELECT slot, claimed_by FROM scheduled_task_slots WHERE task = ? ORDER BY slot', [counts.name]);
      expect(rows.map((row) => new Date(row.slot).toISOString())).toEqual([SLOT.toISOString(), NEXT_SLOT.toISOString()]);
      expect(rows[0].claimed_by).toMatch(/:\d+$/);
      const others = await runtimes[0].orm.em.fork().execute<Array<{ task: string }>>("SELECT task FROM scheduled_task_slots WHERE task <> ?", [counts.name]);
      expect(others).toEqual([{ task: 'recent' }]);
      await Promise.all([a.stop(), b.stop()]);
    });
  });
});
