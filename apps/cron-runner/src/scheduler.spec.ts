import { createLogger } from '@mrp/platform';
import type { Runtime, ScheduledTask } from '@mrp/runtime';
import { startScheduler } from './scheduler';

describe('startScheduler', () => {
  it('runs each task on its schedule, logs failures and keeps going', async () => {
    const logger = createLogger({ name: 'test', level: 'silent' });
    const errors = jest.spyOn(logger, 'error');
    const runtime = { logger } as unknown as Runtime;
    let runs = 0;
    const tasks: ScheduledTask[] = [
      { name: 'counts', schedule: '* * * * * *', description: 'every second', run: async () => ++runs },
      { name: 'fails', schedule: '* * * * * *', description: 'every second', run: async () => Promise.reject(new Error('boom')) },
    ];
    const scheduler = startScheduler(runtime, tasks);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await scheduler.stop();
    const runsAtStop = runs;
    expect(runsAtStop).toBeGreaterThanOrEqual(2);
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ task: 'fails' }), 'task failed');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(runs).toBe(runsAtStop);
  });
});
