import type { Context, Next } from 'koa';
import { DomainError } from '@mrp/platform';
import { PUBLIC_API_PREFIX } from './route-table';

// What a browser app may send beyond the CORS-safelisted headers, and read beyond the safelisted ones.
const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key, if-match, if-none-match, x-request-id';
const EXPOSED_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, ETag, Idempotent-Replayed';
const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** The routes anyone may read without a key, so any origin may read them too. */
const OPEN_PATHS = new Set([`${PUBLIC_API_PREFIX}/openapi.json`, `${PUBLIC_API_PREFIX}/docs`]);

/**
 * CORS for /api/v1: a browser app on an origin of PUBLIC_API_CORS_ORIGINS may call every route
 * (its key in the Authorization header: there are no cookies, so no credentials mode); any origin
 * may read the unauthenticated OpenAPI document. A preflight from any other origin is refused with
 * the contract's error, so the cause is visible in the browser's network panel; a plain request
 * from one gets no CORS headers, and the browser keeps the answer from the page.
 */
export function publicApiCors(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins);
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('Origin');
    if (!origin || !(ctx.path === PUBLIC_API_PREFIX || ctx.path.startsWith(`${PUBLIC_API_PREFIX}/`))) return next();
    const open = OPEN_PATHS.has(ctx.path);
    const mayCall = open || allowed.has(origin);
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      if (!mayCall) throw new DomainError('forbidden', `Origin ${origin} may not call this API (see PUBLIC_API_CORS_ORIGINS)`);
      ctx.set('Access-Control-Allow-Origin', open ? '*' : origin);
      ctx.set('Access-Control-Allow-Methods', open ? 'GET' : ALLOWED_METHODS);
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
      ctx.status = 204;
      return;
    }
    if (mayCall) {
      ctx.set('Access-Control-Allow-Origin', open ? '*' : origin);
      ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    await next();
  };
}
