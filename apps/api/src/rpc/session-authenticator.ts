import { createSessionVerifier, resolveSessionPrincipal } from '@mrp/authz';
import type { PlatformConfig } from '@mrp/platform';
import type { SessionAuthenticator } from './rpc-router';

/** Sessions are JWTs from the identity provider; the principal is resolved from live rows on every call. */
export function createSessionAuthenticator(config: PlatformConfig): SessionAuthenticator {
  const verifier = createSessionVerifier({ jwtSecret: config.authJwtSecret, jwksUrl: config.authJwksUrl });
  return async (em, token, organizationId) =>
    resolveSessionPrincipal(em, await verifier.verify(token), {
      organizationId,
      platformAdminEmails: config.platformAdminEmails,
    });
}
