import { createHash, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_RANDOM_BYTES = 32;

/**
 * A new signing secret: `whsec_` + 32 random bytes in base64, so that it serves either signing
 * scheme (Standard Webhooks keys with the bytes the base64 encodes). Shown once; only its hash is
 * stored. Secrets made before were base64url: they sign the contract's scheme as ever.
 */
export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_RANDOM_BYTES).toString('base64');
}

/** SHA-256 hex of the whole secret string; what `secret_hash` holds. */
export function hashEndpointSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
