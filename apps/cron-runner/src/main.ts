import { loadConfig } from '@mrp/platform';
import { createAutomationRunner, createRuntime, listenForAutomationRuns, runProcess } from '@mrp/runtime';
import { startScheduler } from './scheduler';

runProcess('cron-runner', async () => {
  const runtime = await createRuntime(loadConfig(), { name: 'cron-runner', poolSize: 10 });
  const scheduler = startScheduler(runtime, runtime.tasks);
  // Automation runs start within milliseconds of being queued, not at the next schedule tick.
  const runner = createAutomationRunner(runtime);
  const signals = await listenForAutomationRuns(runtime, runner);
  runtime.logger.info({ tasks: runtime.tasks.map((task) => `${task.name} (${task.schedule})`) }, 'cron-runner started');
  return {
    logger: runtime.logger,
    async stop() {
      await signals.close();
      await scheduler.stop();
      await runner.close();
      await runtime.close();
    },
  };
});
