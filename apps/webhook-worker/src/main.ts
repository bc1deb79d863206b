import { loadConfig } from '@mrp/platform';
import { createRuntime, runProcess } from '@mrp/runtime';
import { createJobQueue, ensureQueues } from '@mrp/events';

runProcess('webhook-worker', async () => {
  const config = loadConfig();
  const runtime = await createRuntime(config, { name: 'webhook-worker', poolSize: 5 });
  const boss = createJobQueue({ databaseUrl: config.databaseUrl as string });
  boss.on('error', (error) => runtime.logger.error({ err: error }, 'job queue error'));
  await boss.start();
  await ensureQueues(boss);
  runtime.logger.info('webhook-worker started; job queues ready');
  return {
    logger: runtime.logger,
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      await runtime.close();
    },
  };
});
