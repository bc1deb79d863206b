/*
 * The contract's signing scheme as a receiver checks it. Web Crypto and TextEncoder only: this file
 * runs in Node and in browsers. The sender signs the same bytes with Node's HMAC (../signing/).
 */

const encoder = new TextEncoder();

/** The bytes signed: `<timestamp>.<raw body>`, the body taken byte for byte as it travels. */
export function signedContent(timestamp: string, body: string | Uint8Array): Uint8Array {
  const prefix = encoder.encode(`${timestamp}.`);
  const bodyBytes = typeof body === 'string' ? encoder.encode(body) : body;
  const content = new Uint8Array(prefix.length + bodyBytes.length);
  content.set(prefix, 0);
  content.set(bodyBytes, prefix.length);
  return content;
}

/** HMAC-SHA256 keyed with the UTF-8 bytes of the whole secret, `whsec_` prefix included (as Stripe does). */
export async function hmacSha256(secret: string, content: Uint8Array): Promise<Uint8Array> {
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, content));
}

export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Equal-length strings compared without an early exit, so timing does not tell how much matched. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
