import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { DomainError } from '@mrp/platform';
import type { Runtime } from '@mrp/runtime';

/** Every /api/v1 route, openapi.json included, is inert while the flag is off. */
function requirePublicApiEnabled(runtime: Runtime) {
  return async (_ctx: Context, next: Next) => {
    if (!(await runtime.flags.isEnabled('public-api.enabled'))) {
      throw new DomainError('public_api_disabled', 'The public API is not enabled on this deployment');
    }
    await next();
  };
}

export function publicApiRouter(runtime: Runtime): Router {
  const router = new Router({ prefix: '/api/v1' });
  router.use(requirePublicApiEnabled(runtime));
  return router;
}
