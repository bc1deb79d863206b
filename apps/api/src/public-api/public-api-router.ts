import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { DomainError, invokeProcedure, preflightProcedure, schemaErrorDetails, validationFailed } from '@mrp/platform';
import type { RateLimiter } from '@mrp/authz';
import type { Runtime } from '@mrp/runtime';
import { hasJsonContentType, readJsonBody, unsupportedMediaType } from '../http/json-body';
import { requestState } from '../http/request-context';
import { apiKeyAuthentication, type PublicApiState } from './api-key-authentication';
import { openApiDocumentHandler } from './openapi-route';
import { parseQuery } from './query-parameters';
import { bindRoute, type BoundRoute } from './route-binding';
import { PUBLIC_API_PREFIX, PUBLIC_ROUTES } from './route-table';


/**
 * Everything under /api/v1 (openapi.json, unknown paths and wrong methods included) is inert while
 * the flag is off: the answer reveals nothing about which routes exist. The comparison ignores
 * case so that no spelling of the prefix slips past the gate.
 */
export function publicApiGate(runtime: Runtime) {
  return async (ctx: Context, next: Next) => {
    const path = ctx.path.toLowerCase();
    const underPublicApi = path === PUBLIC_API_PREFIX || path.startsWith(`${PUBLIC_API_PREFIX}/`);
    if (underPublicApi && !(await runtime.flags.isEnabled('public-api.enabled'))) {
      throw new DomainError('public_api_disabled', 'The public API is not enabled on this deployment');
    }
    await next();
  };
}

/**
 * One route's pipeline after authentication: flag and permission (before anything is read, so a
 * body a caller may not send is neither buffered nor parsed), query, body, then the procedure. Path
 * parameters are identifiers: one that names nothing is a 404 from the procedure (decision 23).
 */
function routeHandler(runtime: Runtime, bound: BoundRoute) {
  const { route, procedure, validateBody } = bound;
  return async (ctx: Context) => {
    const { principal } = ctx.state as PublicApiState;
    await preflightProcedure(procedure, principal, runtime.flags);
    const params = ctx.params as Record<string, string>;
    const query = parseQuery(bound.query, ctx.query);
    let body: unknown;
    if (validateBody) {
      if (!hasJsonContentType(ctx)) throw unsupportedMediaType();
      // No body at all is an empty one: what it lacks is then named as /rpc names it.
      body = (await readJsonBody(ctx)) ?? {};
      if (!validateBody(body)) throw validationFailed(schemaErrorDetails(validateBody.errors));
    }
    const input = bound.toInput({ params, query, body });
    const { em, requestId } = requestState(ctx);
    const result = await invokeProcedure(procedure, input, { em, principal, correlationId: requestId }, runtime.invocationDeps);
    ctx.body = result;
    ctx.status = route.successStatus;
    if (bound.locationOf) ctx.set('Location', bound.locationOf(result));
  };
}

/**
 * The public REST facade: each route of the table, bound to its procedure's input schema, runs
 * that procedure through the same `invokeProcedure` as /rpc, after API-key authentication and the
 * key's rate limit.
 */
export function publicApiRouter(runtime: Runtime, limiter: RateLimiter): Router {
  // Paths are matched exactly as written: /API/V1/Me is not a route.
  const router = new Router({ prefix: PUBLIC_API_PREFIX, sensitive: true });
  const routes = PUBLIC_ROUTES.map((route) => bindRoute(route, runtime.procedures.require(route.procedure)));
  router.get('/openapi.json', openApiDocumentHandler(runtime, limiter, routes));
  const authenticate = apiKeyAuthentication(runtime, limiter);
  for (const bound of routes) router[bound.route.method](bound.route.path, authenticate, routeHandler(runtime, bound));
  return router;
}
