import type { Server } from 'node:http';
import { loadConfig } from '@mrp/platform';
import { createRuntime, runProcess } from '@mrp/runtime';
import { buildApp } from './app';
import { createHttpServer } from './http/http-server';
import { createSessionAuthenticator } from './rpc/session-authenticator';
import { createRateLimiter } from './public-api/rate-limiter';

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
}

runProcess('api', async () => {
  const config = loadConfig(process.env, { requireSessionAuth: true });
  const runtime = await createRuntime(config, { name: 'api' });
  const app = buildApp({
    runtime,
    authenticateSession: createSessionAuthenticator(config),
    rateLimiter: createRateLimiter(runtime),
  });
  const server = createHttpServer(app);
  await listen(server, config.port);
  runtime.logger.info({ port: config.port }, `api listening on http://localhost:${config.port}`);
  return {
    logger: runtime.logger,
    async stop() {
      // Stop accepting, let in-flight requests finish, then release the database.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await runtime.close();
    },
  };
});
