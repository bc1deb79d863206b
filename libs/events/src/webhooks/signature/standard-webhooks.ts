/*
 * The Standard Webhooks signing scheme (standardwebhooks.com), an endpoint's alternative to the
 * contract's: `webhook-signature: v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<body>`, keyed
 * with the bytes the secret's base64 (after `whsec_`) encodes. Web Crypto only, as the contract's
 * scheme: this file runs in Node and in browsers.
 */
const encoder = new TextEncoder();

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

async function signOne(key: Uint8Array, content: Uint8Array): Promise<string> {
  const hmacKey = await globalThis.crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', hmacKey, content));
  return `v1,${btoa(String.fromCharCode(...signature))}`;
}

export interface SignStandardWebhookInput {
  /** The current secret first, then the previous one while a rotation overlap lasts. */
  secrets: readonly string[];
  /** The message id, the same on every attempt of a delivery. */
  id: string;
  /** Unix seconds, the value sent in `webhook-timestamp`. */
  timestamp: number;
  /** The exact body sent. */
  body: string;
}

/** The `webhook-signature` value: `v1,<base64>` per secret, space-separated, in the order given. */
export async function signStandardWebhook({ secrets, id, timestamp, body }: SignStandardWebhookInput): Promise<string> {
  if (secrets.length === 0) throw new Error('signStandardWebhook needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error('signStandardWebhook needs the timestamp in whole unix seconds');
  const content = encoder.encode(`${id}.${timestamp}.${body}`);
  return (await Promise.all(secrets.map((secret) => signOne(standardWebhookKey(secret), content)))).join(' ');
}
