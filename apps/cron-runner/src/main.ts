import { loadConfig } from '@mrp/platform';
import { createRuntime, resolveTaskSchedules, runProcess, startAutomationRunner, workEmailJobs } from '@mrp/runtime';
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
  await workEmailJobs(runtime);
  // Automation runs start within milliseconds of being queued, not at the next schedule tick.
  const runner = await startAutomationRunner(runtime);
  runtime.logger.info({ tasks: schedules.map(({ task, schedule }) => `${task.name} (${schedule ?? 'off'})`) }, 'cron-runner started');
  return {
    logger: runtime.logger,
    async stop() {
      await runner.close();
      await runtime.close();
    },
  };
});
