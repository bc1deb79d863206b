import Router from '@koa/router';
import { notFound } from '@mrp/platform';

/**
 * `POST /hooks/automation/:id` starts an automation with an HTTP trigger. No automation exists
 * until the automations feature lands, so every id is unknown (404), as the contract requires.
 */
export function hooksRouter(): Router {
  const router = new Router({ prefix: '/hooks' });
  router.post('/automation/:id', async (ctx) => {
    throw notFound(`Automation ${ctx.params.id}`);
  });
  return router;
}
