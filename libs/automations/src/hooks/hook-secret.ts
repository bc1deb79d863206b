import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'ahk_';
const SECRET_RANDOM_BYTES = 32;
const DISPLAY_PREFIX_LENGTH = 10;

export interface HookSecret {
  secret: string;
  hash: string;
  prefix: string;
}

/** SHA-256 hex of the whole secret string: what `hook_secret_hash` holds. */
export function hashHookSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new hook secret: `ahk_` + 32 random bytes in base64url. Shown once; only its hash is kept. */
export function generateHookSecret(): HookSecret {
  const secret = SECRET_PREFIX + randomBytes(SECRET_RANDOM_BYTES).toString('base64url');
  return { secret, hash: hashHookSecret(secret), prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** Whether `presented` is the secret of `storedHash`, in time that does not depend on where they differ. */
export function hookSecretMatches(presented: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const given = createHash('sha256').update(presented, 'utf8').digest();
  return expected.length === given.length && timingSafeEqual(given, expected);
}
