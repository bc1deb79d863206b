import { loadConfig } from '@mrp/platform';
import { createRuntime, runProcess } from '@mrp/runtime';
import { startScheduler } from './scheduler';

runProcess('cron-runner', async () => {
  const runtime = await createRuntime(loadConfig(), { name: 'cron-runner', poolSize: 3 });
  const scheduler = startScheduler(runtime, runtime.tasks);
  runtime.logger.info({ tasks: runtime.tasks.map((task) => `${task.name} (${task.schedule})`) }, 'cron-runner started');
  return {
    logger: runtime.logger,
    async stop() {
      await scheduler.stop();
      await runtime.close();
    },
  };
});
