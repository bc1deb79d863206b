import { loadConfig } from '@mrp/platform';
import { createAutomationRunner, createRuntime, listenForAutomationRuns, resolveTaskSchedules, runProcess, workEmailJobs } from '@mrp/runtime';
import { scheduleTasks } from './scheduler';

runProcess('cron-runner', async () => {
  const config = loadConfig();
  const runtime = await createRuntime(config, { name: 'cron-runner', poolSize: 10, statementTimeoutMs: config.taskStatementTimeoutMs, timekeeping: true });
  let schedules;
  try {
    schedules = resolveTaskSchedules(runtime.tasks, config.cronScheduleOverrides);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  await scheduleTasks(runtime, schedules);
  // Automation runs start within milliseconds of being queued, not at the next schedule tick.
  const runner = createAutomationRunner(runtime);
  const signals = await listenForAutomationRuns(runtime, runner);
  await workEmailJobs(runtime);
  await runtime.jobs.start();
  runtime.logger.info({ tasks: schedules.map(({ task, schedule }) => `${task.name} (${schedule ?? 'off'})`) }, 'cron-runner started');
  return {
    logger: runtime.logger,
    async stop() {
      await signals.close();
      await runner.close();
      await runtime.close();
    },
  };
});
