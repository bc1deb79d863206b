import type { Context, Next } from 'koa';
import { authenticateApiKey, type RateLimiter } from '@mrp/authz';
import { DomainError, holdConnection, type ConnectionHold, type Principal } from '@mrp/platform';
import type { Runtime } from '@mrp/runtime';
import { bearerToken } from '../http/bearer-token';
import { requestState } from '../http/request-context';

export interface PublicApiState {
  principal: Principal;
  /** The request's pooled connection, kept from the key lookup for the procedure's statements. */
  connectionHold: ConnectionHold;
}

/**
 * Key authentication, then the key's rate limit, in that order: a 401 consumes no tokens, and
 * every authenticated response carries the bucket's headers, errors included. The key lookup's
 * connection is kept for the procedure's statements until the route is done with the database.
 */
export function apiKeyAuthentication(runtime: Runtime, limiter: RateLimiter) {
  return async (ctx: Context, next: Next) => {
    const { em } = requestState(ctx);
    const connectionHold = holdConnection(em);
    try {
      await authenticateThenNext(ctx, next, connectionHold);
    } finally {
      await connectionHold.end();
    }
  };

  async function authenticateThenNext(ctx: Context, next: Next, connectionHold: ConnectionHold): Promise<void> {
    const { em, log } = requestState(ctx);
    const { principal, rateLimit } = await authenticateApiKey(em, bearerToken(ctx), {
      serviceAccountsEnabled: await runtime.flags.isEnabled('public-api.service-accounts'),
      rateLimiter: limiter,
      // Without it, a failed lastUsedAt write goes to a fallback logger that ignores LOG_LEVEL and the request id.
      logger: log,
    });
    ctx.set('X-RateLimit-Limit', String(rateLimit.limit));
    ctx.set('X-RateLimit-Remaining', String(rateLimit.remaining));
    ctx.set('X-RateLimit-Reset', String(rateLimit.resetSeconds));
    if (!rateLimit.allowed) {
      throw new DomainError('rate_limited', `Rate limit exceeded; retry in ${rateLimit.retryAfterSeconds} s`, undefined, {
        'Retry-After': String(rateLimit.retryAfterSeconds),
      });
    }
    Object.assign(ctx.state as PublicApiState, { principal, connectionHold });
    await next();
  }
}
