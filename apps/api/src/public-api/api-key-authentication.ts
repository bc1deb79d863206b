import type { Context, Next } from 'koa';
import { resolveApiKeyPrincipal, type RateLimiter } from '@mrp/authz';
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
export function authenticateApiKey(runtime: Runtime, limiter: RateLimiter) {
  return async (ctx: Context, next: Next) => {
    const { em, log } = requestState(ctx);
    const principal = await resolveApiKeyPrincipal(em, bearerToken(ctx), {
      serviceAccountsEnabled: await runtime.flags.isEnabled('public-api.service-accounts'),
      // Without it, a failed lastUsedAt write goes to a fallback logger that ignores LOG_LEVEL and the request id.
      logger: log,
    });
    const credential = principal.credential;
    const bucket = credential.type === 'api-key' ? credential.apiKeyId : principal.userId;
    const verdict = await limiter.take(bucket);
    ctx.set('X-RateLimit-Limit', String(verdict.limit));
    ctx.set('X-RateLimit-Remaining', String(verdict.remaining));
    if (!verdict.allowed) {
      throw new DomainError('rate_limited', `Rate limit exceeded; retry in ${verdict.retryAfterSeconds} s`, undefined, {
        'Retry-After': String(verdict.retryAfterSeconds),
      });
    }
    (ctx.state as PublicApiState).principal = principal;
    await next();
  };
}
