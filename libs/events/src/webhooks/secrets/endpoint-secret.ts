import { createHash, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_RANDOM_BYTES = 32;

/** A new signing secret: `whsec_` + 32 random bytes in base64url. Shown once; only its hash is stored. */
export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_RANDOM_BYTES).toString('base64url');
}

/** SHA-256 hex of the whole secret string; what `secret_hash` holds. */
export function hashEndpointSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
