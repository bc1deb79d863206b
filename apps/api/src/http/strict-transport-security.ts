import type Koa from 'koa';
import type { Context, Next } from 'koa';

/**
 * A year, subdomains included: once a browser has seen one answer over https it never again asks
 * this host in plain http, so a session token cannot leak through a downgraded first request.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/**
 * Whether answers carry Strict-Transport-Security: in production only (`app.env`, set from the
 * config's NODE_ENV), since a developer's http://127.0.0.1 must not be pinned to https.
 */
export function sendsStrictTransportSecurity(app: Koa): boolean {
  return app.env === 'production';
}

/** First in the chain, before anything can answer, so every answer has it: errors, health, docs, the console. */
export function strictTransportSecurity(app: Koa) {
  const enabled = sendsStrictTransportSecurity(app);
  return async (ctx: Context, next: Next) => {
    if (enabled) ctx.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    await next();
  };
}
