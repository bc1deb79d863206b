import Koa from 'koa';
import type Router from '@koa/router';
import type { RateLimiter } from '@mrp/authz';
import type { Runtime } from '@mrp/runtime';
import { errorHandler } from './http/error-handler';
import { compressJson } from './http/compression';
import { requestContext } from './http/request-context';
import { strictTransportSecurity } from './http/strict-transport-security';
import { healthRouter } from './health/health-router';
import { Readiness } from './health/readiness';
import { closeConnectionsWhileDraining } from './http/graceful-shutdown';
import { rpcRouter, type SessionAuthenticator } from './rpc/rpc-router';
import { cronRouter } from './cron/cron-router';
import { hooksRouter } from './hooks/hooks-router';
import { publicApiGate, publicApiRouter } from './public-api/public-api-router';
import { publicApiCors } from './public-api/cors';
import { referencePageRouter } from './public-api/reference/reference-page-router';
import { mcpCors, mcpGate, mcpRouter } from './mcp/mcp-router';
import { devSessionRouter, devSignInEnabled } from './dev/dev-session-router';
import { consoleStatic } from './console/console-static';

export interface AppDeps {
  runtime: Runtime;
  authenticateSession: SessionAuthenticator;
  rateLimiter: RateLimiter;
  /** The folder of the API reference page's files (`src/public-api/reference`). */
  referencePageDir: string;
  /** The built web console, served at `/` after every door; none when absent. */
  consoleDir?: string;
  /** Whether the process is draining (main.ts's stop); a process that never stops is always ready. */
  readiness?: Readiness;
}

function mount(app: Koa, router: Router): void {
  app.use(router.routes());
  // Sets 405 + Allow for a wrong method; the error handler gives it the error shape.
  app.use(router.allowedMethods());
}

/** The middleware chain and the mounted doors; never listens (main.ts and tests do). */
export function buildApp({ runtime, authenticateSession, rateLimiter, referencePageDir, consoleDir, readiness = new Readiness() }: AppDeps): Koa {
  const app = new Koa();
  // Koa's own guess reads NODE_ENV unset as development; the config's rule reads it as production.
  app.env = runtime.config.nodeEnv;
  app.silent = true;
  // Behind one reverse proxy, the client is the address it appended to X-Forwarded-For (the last).
  app.proxy = runtime.config.trustProxy;
  app.maxIpsCount = 1;
  app.use(strictTransportSecurity(app));
  app.use(closeConnectionsWhileDraining(readiness));
  app.use(requestContext(runtime.orm, runtime.logger));
  app.use(errorHandler(runtime.logger));
  app.use(compressJson());
  // Mount order is part of the contract: the public API before the internal interface.
  mount(app, healthRouter(runtime.orm, readiness));
  app.use(publicApiGate(runtime));
  app.use(publicApiCors(runtime.config.publicApiCorsOrigins));
  mount(app, publicApiRouter(runtime, rateLimiter, authenticateSession));
  // The Model Context Protocol: the public API's third door, behind the same flag, keys and buckets.
  app.use(mcpGate(runtime));
  app.use(mcpCors(runtime.config.publicApiCorsOrigins));
  mount(app, mcpRouter(runtime, rateLimiter));
  mount(app, referencePageRouter(referencePageDir));
  mount(app, rpcRouter(runtime, authenticateSession));
  mount(app, hooksRouter(runtime));
  mount(app, cronRouter(runtime));
  // Development only: never mounted in production, so the path does not exist there at all.
  if (devSignInEnabled(runtime.config)) mount(app, devSessionRouter(runtime.config));
  // Last: it only sees what no door answered, and it never answers a path of theirs.
  if (consoleDir) app.use(consoleStatic(consoleDir));
  return app;
}
