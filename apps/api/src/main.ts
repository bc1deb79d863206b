import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { ConfigError, apiAddress, createLogger, loadConfig, type PlatformConfig } from '@mrp/platform';
import { closeWithinBound, createRuntime, runProcessCluster, stopTimeoutMs } from '@mrp/runtime';
import { buildApp } from './app';
import { devSignInEnabled } from './dev/dev-session-router';
import { Readiness } from './health/readiness';
import { drainAndClose } from './http/graceful-shutdown';
import { createHttpServer } from './http/http-server';
import { createSessionAuthenticator } from './rpc/session-authenticator';
import { createRateLimiter } from './public-api/rate-limiter';

/** Listening failures an operator fixes with PORT or HOST, said as such. */
function listenFailure(error: NodeJS.ErrnoException, port: number, host: string | undefined): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ConfigError(`PORT ${port} is already in use${host ? ` on ${host}` : ''}: stop the program listening there, or set PORT to a free port`);
    case 'EACCES':
      return new ConfigError(`PORT ${port} needs privileges this process does not have: choose a port above 1023`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`HOST ${host} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0 for all`);
    default:
      return error;
  }
}

function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenFailure(error, port, host)));
    server.listen(port, host, () => resolve());
  });
}

/** The configuration, or undefined when it is wrong: the start below reports it, once, in one line. */
function configOrNothing(): PlatformConfig | undefined {
  try {
    return loadConfig(process.env, { requireSessionAuth: true });
  } catch {
    return undefined;
  }
}

/** The most a stop takes: the drain, the requests under way, then closing the database. */
function apiStopTimeoutMs(config: Pick<PlatformConfig, 'shutdownDrainSeconds' | 'shutdownTimeoutSeconds'>): number {
  return stopTimeoutMs({ drainSeconds: config.shutdownDrainSeconds, shutdownTimeoutSeconds: config.shutdownTimeoutSeconds });
}

const bootConfig = configOrNothing();
const workers = bootConfig?.apiWorkers ?? 1;
const startApi = async () => {
  const config = loadConfig(process.env, { requireSessionAuth: true });
  const runtime = await createRuntime(config, { name: 'api', statementTimeoutMs: config.statementTimeoutMs });
  const readiness = new Readiness();
  const app = buildApp({
    readiness,
    runtime,
    authenticateSession: createSessionAuthenticator(config, runtime.dispatcher),
    rateLimiter: createRateLimiter(runtime),
    // Paths from the app's folder: this file runs as src/main.ts or bundled as dist/main.js.
    referencePageDir: resolve(__dirname, '..', 'src', 'public-api', 'reference'),
    // Built by npm start (apps/console/scripts/ensure-build.ts) or the image's build stage.
    consoleDir: resolve(__dirname, '..', '..', 'console', 'dist'),
  });
  const server = createHttpServer(app);
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  runtime.logger.info({ port: config.port, host: config.host ?? null }, `api listening on ${apiAddress(config)}`);
  if (devSignInEnabled(config)) runtime.logger.warn('development sign-in is open at /dev/session: anyone reaching this api can sign in as anyone');
  return {
    logger: runtime.logger,
    stopTimeoutMs: apiStopTimeoutMs(config),
    async stop() {
      // Not ready but serving while the load balancer takes this process out, then no new
      // connection and the requests under way finished; the database last.
      await drainAndClose(server, readiness, { drainSeconds: config.shutdownDrainSeconds, timeoutSeconds: config.shutdownTimeoutSeconds }, runtime.logger);
      await closeWithinBound(runtime.close(), runtime.logger);
    },
  };
};
runProcessCluster(
  'api',
  workers,
  () => createLogger({ name: 'api', level: bootConfig?.logLevel ?? 'info' }),
  startApi,
  bootConfig ? apiStopTimeoutMs(bootConfig) : undefined,
);
