import Router from '@koa/router';
import type { Orm } from '@mrp/platform';

const DATABASE_CHECK_TIMEOUT_MS = 2000;

async function databaseReachable(orm: Orm): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DATABASE_CHECK_TIMEOUT_MS);
  });
  const check = orm.em
    .fork()
    .execute('SELECT 1')
    .then(() => true)
    .catch(() => false);
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness plus a database round trip: 503 tells the orchestrator to stop routing here. */
export function healthRouter(orm: Orm): Router {
  const router = new Router();
  router.get('/health', async (ctx) => {
    const ok = await databaseReachable(orm);
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ok' : 'unavailable', database: ok ? 'ok' : 'unreachable' };
  });
  return router;
}
