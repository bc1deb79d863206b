import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Context, Next } from 'koa';
import type { Logger } from '@mrp/platform';
import { finishesWithin } from '@mrp/runtime';
import type { Readiness } from '../health/readiness';

export interface DrainSettings {
  /** SHUTDOWN_DRAIN_SECONDS: serving on, not ready, while the load balancer takes this process out. */
  drainSeconds: number;
  /** SHUTDOWN_TIMEOUT_SECONDS: how long requests under way may go on once no new connection is accepted. */
  timeoutSeconds: number;
}

/**
 * While draining, every answer closes its connection: a client (the load balancer's pool) opens
 * its next one afresh, and by then the balancer sends it elsewhere.
 */
export function closeConnectionsWhileDraining(readiness: Readiness) {
  return async (ctx: Context, next: Next) => {
    if (readiness.draining) ctx.set('Connection', 'close');
    await next();
  };
}

/**
 * The api's stop: not ready at once, but answering old and new requests for the drain period; then
 * no new connection, the requests under way finished within the timeout (their connections cut
 * after it). The caller closes the database once this resolves.
 */
export async function drainAndClose(server: Server, readiness: Readiness, { drainSeconds, timeoutSeconds }: DrainSettings, logger: Logger): Promise<void> {
  readiness.startDraining();
  if (drainSeconds > 0) {
    logger.info({ drainSeconds }, 'api draining: not ready, still serving');
    await delay(drainSeconds * 1000);
  }
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  logger.info({ timeoutSeconds }, 'api closed to new connections; finishing the requests under way');
  if (await finishesWithin(closed, timeoutSeconds * 1000)) return;
  logger.warn({ timeoutSeconds }, 'requests still under way when SHUTDOWN_TIMEOUT_SECONDS ran out: their connections are closed');
  server.closeAllConnections();
  await closed;
}
