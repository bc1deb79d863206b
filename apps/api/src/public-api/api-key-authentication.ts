import type { Context, Next } from 'koa';
import { authenticateApiKey, type RateLimiter } from '@mrp/authz';
import { DomainError, type Principal } from '@mrp/platform';
import type { Runtime } from '@mrp/runtime';
import { bearerToken } from '../http/bearer-token';
import { requestState } from '../http/request-context';

export interface PublicApiState {
  principal: Principal;
}

/**
 * Key authentication, then the key's rate limit, in that order: a 401 consumes no tokens, and
 * every authenticated response carries the bucket's headers, errors included.
 */
export function apiKeyAuthentication(runtime: Runtime, limiter: RateLimiter) {
  return async (ctx: Context, next: Next) => {
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
    (ctx.state as PublicApiState).principal = principal;
    await next();
  };
}
