import Router from '@koa/router';
import type { Context, Next } from 'koa';
import {
  DomainError,
  answerVersionOf,
  invokeProcedure,
  preflightProcedure,
  schemaErrorDetails,
  validationFailed,
  type Principal,
} from '@mrp/platform';
import type { RateLimiter } from '@mrp/authz';
import type { RecordExport } from '@mrp/data-models';
import type { Runtime } from '@mrp/runtime';
import { entityTag, ifNoneMatchHits } from '../http/entity-tags';
import { errorBody } from '../http/error-handler';
import { httpStatusFor } from '../http/error-status';
import { hasJsonContentType, readJsonBody, unsupportedMediaType } from '../http/json-body';
import { requestState } from '../http/request-context';
import type { SessionAuthenticator } from '../rpc/rpc-router';
import { apiKeyAuthentication, type PublicApiState } from './api-key-authentication';
import { keyOrConsoleSession } from './console-session';
import { AnswerToReplay, IDEMPOTENT_METHODS, idempotencyKeyOf, idempotentOutcome, requestFingerprint, type HttpAnswer } from './idempotency';
import { sendExport } from './export-stream';
import { openApiDocumentHandler } from './openapi-route';
import { parseQuery } from './query-parameters';
import { bindRoutes, boundForBody, type BoundRoute } from './route-binding';
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

/** A success as it is sent (and, under an Idempotency-Key, kept): the route's status, Location and ETag, the answer. */
function successAnswer(bound: BoundRoute, output: unknown): HttpAnswer {
  const headers: Record<string, string> = {};
  if (bound.locationOf) headers['Location'] = bound.locationOf(output);
  const version = answerVersionOf(output);
  if (version) headers['ETag'] = entityTag(version);
  return { status: bound.route.successStatus, headers, body: output };
}

/** Whose keys these are: the API key's, so two keys never share an Idempotency-Key, even of one owner. */
function idempotencyCredential({ credential }: Principal): string {
  if (credential.type !== 'api-key') throw new Error('The public API authenticates by API key');
  return `api-key:${credential.apiKeyId}`;
}

function send(ctx: Context, answer: HttpAnswer): void {
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  ctx.status = answer.status;
  ctx.body = answer.body;
}

/**
 * One route's pipeline after authentication: flag and permission (before anything is read, so a
 * body a caller may not send is neither buffered nor parsed), query, body, then the procedure. Path
 * parameters are identifiers: one that names nothing is a 404 from the procedure (decision 23).
 * A write with an Idempotency-Key keeps its answer in the procedure's transaction, and a retry of
 * it is answered from there; a GET with If-None-Match naming the answer's tag is a 304.
 */
function routeHandler(runtime: Runtime, route: BoundRoute) {
  const idempotent = IDEMPOTENT_METHODS.has(route.route.method);
  return async (ctx: Context) => {
    const { principal } = ctx.state as PublicApiState;
    const idempotencyKey = idempotent ? idempotencyKeyOf(ctx) : undefined;
    await preflightProcedure(route.procedure, principal, runtime.flags);
    const params = ctx.params as Record<string, string>;
    const query = parseQuery(route.query, ctx.query);
    let body: unknown;
    let bound = route;
    if (route.validateBody) {
      if (!hasJsonContentType(ctx)) throw unsupportedMediaType();
      // No body at all is an empty one: what it lacks is then named as /rpc names it.
      body = (await readJsonBody(ctx)) ?? {};
      bound = boundForBody(route, body);
      if (bound !== route) await preflightProcedure(bound.procedure, principal, runtime.flags);
      const validateBody = bound.validateBody as NonNullable<BoundRoute['validateBody']>;
      if (!validateBody(body)) throw validationFailed(schemaErrorDetails(validateBody.errors));
    }
    const { procedure } = bound;
    const input = bound.toInput({ params, query, body, ifMatch: ctx.get('If-Match') });
    const { em, requestId } = requestState(ctx);
    if (route.route.streamsExport) {
      // The organization's share is taken per page, never for the whole export: one export cannot hold a place for long.
      const shared = <T>(work: () => Promise<T>) => runtime.organizationShare.run(principal.organizationId, work);
      const { exported, first } = await shared(async () => {
        const output = await invokeProcedure<RecordExport>(procedure, input, { em, principal, correlationId: requestId }, runtime.invocationDeps);
        return { exported: output, first: await output.pages.next() };
      });
      await sendExport(ctx, exported, first, () => shared(() => exported.pages.next()), runtime.logger);
      return;
    }
    if (idempotencyKey === undefined) {
      const output = await runtime.organizationShare.run(principal.organizationId, () =>
        invokeProcedure(procedure, input, { em, principal, correlationId: requestId }, runtime.invocationDeps),
      );
      const answer = successAnswer(bound, output);
      if (route.route.method === 'get' && answer.headers['ETag'] && ifNoneMatchHits(ctx.get('If-None-Match'), answer.headers['ETag'])) {
        send(ctx, { status: 304, headers: { ETag: answer.headers['ETag'] }, body: null });
        return;
      }
      send(ctx, answer);
      return;
    }
    const recorder = idempotentOutcome({
      scope: { credentialId: idempotencyCredential(principal), key: idempotencyKey },
      requestHash: requestFingerprint(ctx, body),
      answerOf: (output) => successAnswer(bound, output),
      failureAnswerOf: (error: DomainError) => ({ status: httpStatusFor(error.code), headers: { ...error.headers }, body: errorBody(error, requestId) }),
    });
    try {
      await runtime.organizationShare.run(principal.organizationId, () =>
        invokeProcedure(procedure, input, { em, principal, correlationId: requestId, recorder }, runtime.invocationDeps),
      );
    } catch (error) {
      if (!(error instanceof AnswerToReplay)) throw error;
      send(ctx, { ...error.answer, headers: { ...error.answer.headers, 'Idempotent-Replayed': 'true' } });
      return;
    }
    if (recorder.answer) send(ctx, recorder.answer);
  };
}

/**
 * The public REST facade: each route of the table, bound to its procedure's input schema, runs
 * that procedure through the same `invokeProcedure` as /rpc, after API-key authentication and the
 * key's rate limit.
 */
export function publicApiRouter(runtime: Runtime, limiter: RateLimiter, authenticateSession?: SessionAuthenticator): Router {
  // Paths are matched exactly as written: /API/V1/Me is not a route.
  const router = new Router({ prefix: PUBLIC_API_PREFIX, sensitive: true });
  const routes = bindRoutes(PUBLIC_ROUTES, (name) => runtime.procedures.require(name));
  router.get('/openapi.json', openApiDocumentHandler(runtime, limiter, routes));
  const authenticate = apiKeyAuthentication(runtime, limiter);
  // The web application downloads exports with its session (/rpc cannot stream them).
  const exportAuthentication = authenticateSession ? keyOrConsoleSession(authenticateSession, authenticate) : authenticate;
  for (const bound of routes) {
    router[bound.route.method](bound.route.path, bound.route.streamsExport ? exportAuthentication : authenticate, routeHandler(runtime, bound));
  }
  return router;
}
