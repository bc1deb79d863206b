import { createHash, randomBytes } from 'node:crypto';

/** How long an invite link stays usable. */
export const INVITE_LIFETIME_DAYS = 7;

/** `inv_` + 32 random bytes; only its SHA-256 is stored, so a database leak yields no usable invite. */
export function newInviteToken(): string {
  return `inv_${randomBytes(32).toString('base64url')}`;
}

export function hashInviteToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
