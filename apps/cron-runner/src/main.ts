import { loadConfig } from '@mrp/platform';
import { closeWithinBound, createRuntime, finishesWithin, resolveTaskSchedules, runProcess, startAutomationRunner, stopTimeoutMs, workEmailJobs } from '@mrp/runtime';
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
  const timeoutMs = config.shutdownTimeoutSeconds * 1000;
  return {
    logger: runtime.logger,
    stopTimeoutMs: stopTimeoutMs({ drainSeconds: 0, shutdownTimeoutSeconds: config.shutdownTimeoutSeconds }),
    async stop() {
      // The automation runner takes no new run and lets those under way finish; the tasks and
      // emails under way go on meanwhile, and the job queue then waits for them: all within one
      // bound. What is cut off runs again elsewhere (a run's or a task's job expires).
      const deadline = Date.now() + timeoutMs;
      if (!(await finishesWithin(runner.close(), timeoutMs))) {
        runtime.logger.warn({ timeoutSeconds: config.shutdownTimeoutSeconds }, 'automation runs still under way when SHUTDOWN_TIMEOUT_SECONDS ran out: they run again later');
      }
      await runtime.jobs.stop(Math.max(0, deadline - Date.now()));
      await closeWithinBound(runtime.close(), runtime.logger);
    },
  };
});
