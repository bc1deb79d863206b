import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { Type } from '@sinclair/typebox';
import {
  DomainError,
  compileSchema,
  invokeProcedure,
  schemaErrorDetails,
  validationFailed,
  type AnyProcedure,
} from '@mrp/platform';
import type { RateLimiter } from '@mrp/authz';
import type { Runtime } from '@mrp/runtime';
import { readJsonBody } from '../http/json-body';
import { requestState } from '../http/request-context';
import { apiKeyAuthentication, type PublicApiState } from './api-key-authentication';
import { buildOpenApiDocument } from './openapi-document';
import { PUBLIC_ROUTES, type PublicRoute } from './route-table';

/**
 * Everything under /api/v1 (openapi.json, unknown paths and wrong methods included) is inert while
 * the flag is off: the answer reveals nothing about which routes exist.
 */
export function publicApiGate(runtime: Runtime) {
  return async (ctx: Context, next: Next) => {
    const underPublicApi = ctx.path === '/api/v1' || ctx.path.startsWith('/api/v1/');
    if (underPublicApi && !(await runtime.flags.isEnabled('public-api.enabled'))) {
      throw new DomainError('public_api_disabled', 'The public API is not enabled on this deployment');
    }
    await next();
  };
}

const emptyQuery = Type.Object({}, { additionalProperties: false });

function singleValued(query: Context['query']): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) {
      throw validationFailed([{ field: name, code: 'invalid_format', message: `${name} may be given only once` }]);
    }
    if (value !== undefined) values[name] = value;
  }
  return values;
}

function routeHandler(runtime: Runtime, route: PublicRoute, procedure: AnyProcedure) {
  const validateQuery = compileSchema<Record<string, string>>(route.query ?? emptyQuery);
  const validateBody = route.body ? compileSchema(route.body) : undefined;
  return async (ctx: Context) => {
    const query = singleValued(ctx.query);
    if (!validateQuery(query)) throw validationFailed(schemaErrorDetails(validateQuery.errors), 'Invalid query parameters');
    let body: unknown;
    if (validateBody) {
      if (!ctx.is('application/json')) {
        throw new DomainError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
      }
      body = await readJsonBody(ctx);
      if (body === undefined) throw validationFailed([{ field: 'data', code: 'required', message: 'A JSON body with "data" is required' }]);
      if (!validateBody(body)) throw validationFailed(schemaErrorDetails(validateBody.errors));
    }
    const input = route.toInput({ params: ctx.params as Record<string, string>, query, body });
    const { em, requestId } = requestState(ctx);
    const { principal } = ctx.state as PublicApiState;
    ctx.body = await invokeProcedure(procedure, input, { em, principal, correlationId: requestId }, runtime.invocationDeps);
    ctx.status = route.successStatus;
  };
}

/**
 * The public REST facade: each route of the table runs its procedure through the same
 * `invokeProcedure` as /rpc, after API-key authentication and the key's rate limit.
 */
export function publicApiRouter(runtime: Runtime, limiter: RateLimiter): Router {
  const router = new Router({ prefix: '/api/v1' });
  const document = buildOpenApiDocument(PUBLIC_ROUTES, runtime.procedures);
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  const authenticate = apiKeyAuthentication(runtime, limiter);
  for (const route of PUBLIC_ROUTES) {
    const procedure = runtime.procedures.require(route.procedure);
    router[route.method](route.path, authenticate, routeHandler(runtime, route, procedure));
  }
  return router;
}
