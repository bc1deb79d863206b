/*
 * The Standard Webhooks signing scheme (standardwebhooks.com), an endpoint's alternative to the
 * contract's: `webhook-signature: v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<body>`, keyed
 * with the bytes the secret's base64 (after `whsec_`) encodes. What both sides share, and
 * nothing else: this file runs in Node and in browsers (the sender signs in ../signing/).
 */
const SECRET_PREFIX = 'whsec_';

/** The header names of the scheme, as its verifiers read them. */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** The HMAC key of a `whsec_<base64>` secret: the bytes it encodes. */
export function standardWebhookKey(secret: string): Uint8Array {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new Error('a Standard Webhooks secret is whsec_ followed by base64');
  return Uint8Array.from(atob(encoded), (character) => character.charCodeAt(0));
}
