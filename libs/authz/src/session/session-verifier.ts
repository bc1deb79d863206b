import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { DomainError, isUuidString, unauthorized, unstorableText } from '@mrp/platform';

/** The identity provider's claims a session carries (DESIGN 3). */
export interface SessionClaims {
  /** The provider's id of the person: a UUID, lowercase. */
  sub: string;
  email: string;
  /**
   * `false` when the provider says it has not verified `email` (`email_verified: false`): the
   * address then grants nothing. Absent when the provider does not say, and then it is trusted.
   */
  emailVerified?: boolean;
  name?: string;
}

export interface SessionVerifierOptions {
  /** HS256 shared secret (AUTH_JWT_SECRET). */
  jwtSecret?: string;
  /** JWKS endpoint of the identity provider (AUTH_JWKS_URL); RS256 and ES256 keys. */
  jwksUrl?: string;
  /**
   * The `iss` and `aud` a token must carry, when set (AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE). A
   * provider's JWKS signs the tokens of all its clients: without an audience, a token minted for
   * another application of the same provider would open a session here.
   */
  issuer?: string;
  audience?: string;
}

export interface SessionVerifier {
  /** Resolves the token's claims or throws `unauthorized` saying what is wrong with it. */
  verify(token: string): Promise<SessionClaims>;
}

const ASYMMETRIC_ALGORITHMS = ['RS256', 'ES256'];
// A few seconds of skew between the identity provider's clock and ours must not log people out.
const CLOCK_TOLERANCE_SECONDS = 5;
const MAX_EMAIL_LENGTH = 254;

/**
 * Whether the provider vouches for the address. Some providers send the flag as a string; any
 * other value than true is no vouching.
 */
function emailVerifiedFrom(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  return value === true || value === 'true';
}

function claimsFrom(payload: JWTPayload): SessionClaims {
  const { sub, email, name } = payload as JWTPayload & { email?: unknown; name?: unknown };
  // Humans have the provider's UUID as id (the contract); it also keeps `svc_` ids, reserved for
  // service accounts, out of reach of any session.
  if (!isUuidString(sub)) throw unauthorized('Session token has no valid "sub" claim (a UUID)');
  if (typeof email !== 'string' || email.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw unauthorized('Session token has no valid "email" claim');
  }
  const claims: SessionClaims = { sub: sub.toLowerCase(), email };
  const emailVerified = emailVerifiedFrom(payload.email_verified);
  if (emailVerified !== undefined) claims.emailVerified = emailVerified;
  if (typeof name === 'string' && name.trim()) claims.name = name.trim();
  // Claims are stored with the user: PostgreSQL refuses U+0000, and a lone surrogate would be altered.
  if (Object.values(claims).some((claim) => typeof claim === 'string' && unstorableText(claim) !== undefined)) {
    throw unauthorized('Session token claims hold U+0000 or a lone surrogate');
  }
  return claims;
}

function describe(error: errors.JOSEError): string {
  if (error instanceof errors.JWTExpired) return 'Session token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `Session token is invalid: ${error.message}`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'Session token signature is invalid';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'Session token is signed with an algorithm that is not accepted';
  return 'Session token is invalid';
}

/**
 * Verifies session JWTs with `jose`: HS256 against the shared secret and/or RS256/ES256 against
 * the provider's JWKS (with both configured, the token's `alg` picks the key). Tokens must carry
 * `exp`: a session that never expires is a credential that can never be taken back.
 */
export function createSessionVerifier(options: SessionVerifierOptions): SessionVerifier {
  const secret = options.jwtSecret ? new TextEncoder().encode(options.jwtSecret) : undefined;
  const jwks = options.jwksUrl ? createRemoteJWKSet(new URL(options.jwksUrl)) : undefined;
  if (!secret && !jwks) throw new Error('createSessionVerifier needs a jwtSecret or a jwksUrl');
  const algorithms = [...(secret ? ['HS256'] : []), ...(jwks ? ASYMMETRIC_ALGORITHMS : [])];

  // jose checks `alg` against `algorithms` before asking for a key.
  const getKey: JWTVerifyGetKey = (header, token) => {
    if (header.alg === 'HS256' && secret) return secret;
    if (jwks) return jwks(header, token);
    throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  };

  return {
    async verify(token) {
      if (typeof token !== 'string' || token.length === 0) throw unauthorized('Session token is missing');
      try {
        const { payload } = await jwtVerify(token, getKey, {
          algorithms,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp'],
          issuer: options.issuer,
          audience: options.audience,
        });
        return claimsFrom(payload);
      } catch (error) {
        if (error instanceof DomainError) throw error;
        if (error instanceof errors.JWKSTimeout) {
          throw new DomainError('service_unavailable', 'The identity provider did not answer in time');
        }
        if (error instanceof errors.JOSEError) throw unauthorized(describe(error));
        throw error;
      }
    },
  };
}
