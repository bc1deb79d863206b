import Router from '@koa/router';
import { DomainError, type Orm } from '@mrp/platform';
import { DatabaseProbe } from './database-probe';
import type { Readiness } from './readiness';

const DATABASE_CHECK_TIMEOUT_MS = 2000;

/** A `SELECT 1` on a pooled connection: true once it answers, false if it fails. */
function databaseAnswers(orm: Orm): Promise<boolean> {
  return orm.em
    .fork()
    .execute('SELECT 1')
    .then(() => true)
    .catch(() => false);
}

/**
 * The checks an orchestrator and a load balancer make:
 * - `/health`: a database round trip, 503 when it fails (the documented check, kept as it was);
 * - `/health/live`: the process answers at all, no database (a failing database is no reason to restart it);
 * - `/health/ready`: route traffic here: 503 in the contract's error shape while the database
 *   cannot be reached and from the moment the process is asked to stop (it drains).
 * Concurrent checks share one database round trip (DatabaseProbe).
 */
export function healthRouter(orm: Orm, readiness: Readiness): Router {
  const router = new Router();
  const database = new DatabaseProbe(() => databaseAnswers(orm), DATABASE_CHECK_TIMEOUT_MS);
  router.get('/health', async (ctx) => {
    const ok = await database.reachable();
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ok' : 'unavailable', database: ok ? 'ok' : 'unreachable' };
  });
  router.get('/health/live', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/health/ready', async (ctx) => {
    if (readiness.draining) throw new DomainError('service_unavailable', 'This api process is shutting down: send requests to another');
    if (!(await database.reachable())) throw new DomainError('service_unavailable', 'The database cannot be reached');
    ctx.body = { status: 'ok', database: 'ok' };
  });
  return router;
}
