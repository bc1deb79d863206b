import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/*
 * The built-in resolver's copy of a secret: AES-256-GCM under WEBHOOK_SECRET_ENCRYPTION_KEY, with the
 * endpoint id as additional authenticated data, so a ciphertext copied onto another endpoint's row
 * does not decrypt. Text format `v1.<iv>.<tag>.<ciphertext>`, each part base64url; the version
 * leaves room for another scheme without guessing which one a row holds.
 */

const FORMAT_VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new TypeError(`The secret encryption key must be ${KEY_BYTES} bytes`);
}

export function encryptEndpointSecret(key: Buffer, endpointId: string, secret: string): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(endpointId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [FORMAT_VERSION, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
}

export function decryptEndpointSecret(key: Buffer, endpointId: string, text: string): string {
  assertKey(key);
  const parts = text.split('.');
  if (parts.length !== 4 || parts[0] !== FORMAT_VERSION) {
    throw new SecretDecryptionError(`The stored secret is not in the ${FORMAT_VERSION} format`);
  }
  const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretDecryptionError(`The stored secret is not in the ${FORMAT_VERSION} format`);
  }
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(endpointId, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError('The stored secret does not decrypt with this key for this endpoint');
  }
}
