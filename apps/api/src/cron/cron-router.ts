import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { DomainError, notFound, unauthorized } from '@mrp/platform';
import type { Runtime } from '@mrp/runtime';
import { bearerToken } from '../http/bearer-token';

function sameSecret(given: string, expected: string): boolean {
  // Hash both sides so the comparison takes the same time whatever the lengths.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Fallback triggers of the scheduled tasks, for platforms that bring their own scheduler. */
export function cronRouter(runtime: Runtime): Router {
  const router = new Router({ prefix: '/cron' });
  const run = async (ctx: Context) => {
    const secret = runtime.config.cronSecret;
    if (!secret) throw new DomainError('service_unavailable', 'Scheduled-task routes are off: CRON_SECRET is not configured');
    // Authenticate before looking the task up: without the secret, no answer tells which tasks exist.
    if (!sameSecret(bearerToken(ctx), secret)) throw unauthorized('Invalid cron secret');
    const task = runtime.tasks.find((candidate) => candidate.name === ctx.params.task);
    if (!task) throw notFound(`Scheduled task ${ctx.params.task}`);
    const processed = await task.run(runtime);
    ctx.body = { task: task.name, processed };
  };
  router.get('/:task', run);
  router.post('/:task', run);
  return router;
}
