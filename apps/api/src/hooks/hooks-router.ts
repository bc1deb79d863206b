import Router from '@koa/router';
import { TRIGGER_AUTOMATION_HOOKS, triggerHook } from '@mrp/automations';
import { invokeAsSystem, type Runtime } from '@mrp/runtime';
import { readJsonBody } from '../http/json-body';

/** The bearer value, or null when there is none: a missing secret is counted like a wrong one. */
function presentedSecret(header: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/**
 * `POST /hooks/automation/:id` starts a run of an automation with an http trigger, authenticated
 * by the automation's own secret; 202 with the run's id. The order of checks is the automations
 * lib's (`triggerHook`); the run itself is queued by a system procedure, as `system:automation-hook`.
 */
export function hooksRouter(runtime: Runtime): Router {
  const router = new Router({ prefix: '/hooks' });
  router.post('/automation/:id', async (ctx) => {
    const { runId } = await triggerHook(runtime.orm.em.fork(), {
      automationId: ctx.params.id,
      secret: presentedSecret(ctx.get('Authorization')),
      clientAddress: ctx.ip,
      readBody: () => readJsonBody(ctx),
      enqueue: (input) =>
        invokeAsSystem<{ runId: string }>(runtime, {
          task: 'automation-hook',
          procedure: 'automations.hooks.enqueue',
          permissions: [TRIGGER_AUTOMATION_HOOKS],
          input,
        }),
    });
    ctx.status = 202;
    ctx.body = { runId };
  });
  return router;
}
