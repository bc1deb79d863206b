import { loadConfig } from '@mrp/platform';
import { closeWithinBound, createRuntime, finishesWithin, runProcess, stopTimeoutMs } from '@mrp/runtime';

runProcess('webhook-worker', async () => {
  const config = loadConfig();
  const runtime = await createRuntime(config, { name: 'webhook-worker', poolSize: 5, statementTimeoutMs: config.taskStatementTimeoutMs });
  const worker = runtime.webhooks.createWorker(runtime.invocationDeps);
  try {
    // The worker first, so that the job queue's start waits for the LISTEN its wake-ups need;
    // then pg-boss's maintenance (expiring the jobs of a worker that died).
    worker.start();
    await runtime.jobs.start();
  } catch (error) {
    await runtime.close();
    throw error;
  }
  runtime.logger.info('webhook-worker started; delivering webhooks');
  const timeoutMs = config.shutdownTimeoutSeconds * 1000;
  return {
    logger: runtime.logger,
    stopTimeoutMs: stopTimeoutMs({ drainSeconds: 0, shutdownTimeoutSeconds: config.shutdownTimeoutSeconds }),
    async stop() {
      // No new delivery is taken; those claimed but unsent go back at once; those being sent are
      // recorded, within the bound. One cut off is sent again once its claim's lease runs out.
      const deadline = Date.now() + timeoutMs;
      if (!(await finishesWithin(worker.stop(), timeoutMs))) {
        runtime.logger.warn({ timeoutSeconds: config.shutdownTimeoutSeconds }, 'webhook deliveries still being sent when SHUTDOWN_TIMEOUT_SECONDS ran out: they are sent again later');
      }
      await runtime.jobs.stop(Math.max(0, deadline - Date.now()));
      await closeWithinBound(runtime.close(), runtime.logger);
    },
  };
});
