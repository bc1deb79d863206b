import { loadConfig } from '@mrp/platform';
import { createRuntime, runProcess } from '@mrp/runtime';

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
  return {
    logger: runtime.logger,
    async stop() {
      await worker.stop();
      await runtime.close();
    },
  };
});
