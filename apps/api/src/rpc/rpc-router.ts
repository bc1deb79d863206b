import Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import { answerVersionOf, assertProcedureAvailable, badRequest, invokeProcedure, isUuidString, notFound, type Principal } from '@mrp/platform';
import type { Runtime } from '@mrp/runtime';
import { bearerToken } from '../http/bearer-token';
import { entityTag } from '../http/entity-tags';
import { readJsonBody } from '../http/json-body';
import { requestState } from '../http/request-context';

export type SessionAuthenticator = (
  em: EntityManager,
  token: string,
  organizationId: string | null,
  correlationId: string,
) => Promise<Principal>;

/**
 * The internal interface of the web application: `POST /rpc/{procedure}` with a session token.
 * Every procedure of the registry is served here; the public API serves a curated subset.
 */
export function rpcRouter(runtime: Runtime, authenticate: SessionAuthenticator): Router {
  const router = new Router({ prefix: '/rpc' });
  router.post('/:name', async (ctx) => {
    const procedure = runtime.procedures.served(ctx.params.name);
    if (!procedure) throw notFound(`Procedure ${ctx.params.name}`);
    // A procedure behind a flag that is off answers as an unknown name does, even to anonymous callers.
    await assertProcedureAvailable(procedure, runtime.flags);
    if (procedure.streamsAnswer) throw badRequest(`${procedure.name} streams its answer: download it through the REST route that serves it`);
    const { em, requestId } = requestState(ctx);
    const organizationHeader = ctx.get('X-Organization-Id');
    if (organizationHeader && !isUuidString(organizationHeader)) {
      throw badRequest('X-Organization-Id must be an organization id (UUID)');
    }
    const principal = await authenticate(em, bearerToken(ctx), organizationHeader || null, requestId);
    const input = (await readJsonBody(ctx)) ?? {};
    const output = await runtime.organizationShare.run(principal.organizationId, () =>
      invokeProcedure(procedure, input, { em, principal, correlationId: requestId }, runtime.invocationDeps),
    );
    // The version of what the answer shows, for a later call's expectedVersion (the JSON stays the procedure's).
    const version = answerVersionOf(output);
    if (version) ctx.set('ETag', entityTag(version));
    ctx.body = output;
  });
  return router;
}
