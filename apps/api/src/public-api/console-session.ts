import type { Context, Next } from 'koa';
import { badRequest, isUuidString } from '@mrp/platform';
import { bearerToken } from '../http/bearer-token';
import { requestState } from '../http/request-context';
import type { SessionAuthenticator } from '../rpc/rpc-router';
import type { PublicApiState } from './api-key-authentication';

/** A session token is a JWT (three dot-separated parts); an API key (`mrk_…`) holds no dot. */
const SESSION_TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * For the routes the web application uses beside /rpc (a download, which /rpc cannot answer): a
 * request with the application's session token (and X-Organization-Id, as on /rpc) is
 * authenticated as /rpc authenticates it; any other goes to `byKey`. The session travels in the
 * Authorization header, never in a cookie, so another site cannot make a browser send it.
 */
export function keyOrConsoleSession(authenticateSession: SessionAuthenticator, byKey: (ctx: Context, next: Next) => Promise<void>) {
  return async (ctx: Context, next: Next) => {
    const token = bearerToken(ctx);
    if (!SESSION_TOKEN.test(token)) return byKey(ctx, next);
    const organizationHeader = ctx.get('X-Organization-Id');
    if (organizationHeader && !isUuidString(organizationHeader)) throw badRequest('X-Organization-Id must be an organization id (UUID)');
    const { em, requestId } = requestState(ctx);
    (ctx.state as PublicApiState).principal = await authenticateSession(em, token, organizationHeader || null, requestId);
    await next();
  };
}
