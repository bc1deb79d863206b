import { loadConfig } from '@mrp/platform';
import { createRuntime, runProcess } from '@mrp/runtime';
import { listenForDueDeliveries } from '@mrp/events';

runProcess('webhook-worker', async () => {
  const config = loadConfig();
  const runtime = await createRuntime(config, { name: 'webhook-worker', poolSize: 5, statementTimeoutMs: config.taskStatementTimeoutMs });
  const worker = runtime.webhooks.createWorker(runtime.invocationDeps);
  let signals;
  try {
    signals = await listenForDueDeliveries({ databaseUrl: config.databaseUrl as string, logger: runtime.logger, onDue: () => worker.wake() });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  runtime.logger.info('webhook-worker started; delivering webhooks');
  return {
    logger: runtime.logger,
    async stop() {
      await signals.close();
      await worker.stop();
      await runtime.close();
    },
  };
});
