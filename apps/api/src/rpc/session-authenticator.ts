import { createSessionVerifier, resolveSessionPrincipal } from '@mrp/authz';
import type { EventDispatcher, PlatformConfig } from '@mrp/platform';
import type { SessionAuthenticator } from './rpc-router';

/**
 * Sessions are JWTs from the identity provider; the principal is resolved from live rows on every
 * call. The dispatcher receives `user.email-changed` when the provider has changed an address.
 */
export function createSessionAuthenticator(config: PlatformConfig, dispatcher: EventDispatcher): SessionAuthenticator {
  const verifier = createSessionVerifier({
    jwtSecret: config.authJwtSecret,
    jwksUrl: config.authJwksUrl,
    issuer: config.authJwtIssuer,
    audience: config.authJwtAudience,
  });
  return async (em, token, organizationId, correlationId) =>
    resolveSessionPrincipal(em, await verifier.verify(token), {
      organizationId,
      platformAdminEmails: config.platformAdminEmails,
      dispatcher,
      correlationId,
    });
}
