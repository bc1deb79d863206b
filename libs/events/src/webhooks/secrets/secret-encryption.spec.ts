import { randomBytes } from 'node:crypto';
import { decryptEndpointSecret, encryptEndpointSecret, SecretDecryptionError } from './secret-encryption';

const KEY = randomBytes(32);
const ENDPOINT = '0193f9a0-0000-7000-8000-000000000001';
const OTHER_ENDPOINT = '0193f9a0-0000-7000-8000-000000000002';
const SECRET = 'whsec_c2VjcmV0LWZvci10ZXN0aW5nLW9ubHktMDAwMDAwMDA';

describe('secret encryption (AES-256-GCM, bound to the endpoint)', () => {
  it('decrypts what it encrypted', () => {
    const ciphertext = encryptEndpointSecret(KEY, ENDPOINT, SECRET);
    expect(decryptEndpointSecret(KEY, ENDPOINT, ciphertext)).toBe(SECRET);
  });

  it('writes v1.<iv>.<tag>.<ciphertext> in base64url, with a 12-byte iv and a 16-byte tag', () => {
    const [version, iv, tag, ciphertext, ...rest] = encryptEndpointSecret(KEY, ENDPOINT, SECRET).split('.');
    expect(version).toBe('v1');
    expect(rest).toEqual([]);
    for (const part of [iv, tag, ciphertext]) expect(part).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag, 'base64url')).toHaveLength(16);
    expect(Buffer.from(ciphertext, 'base64url')).toHaveLength(Buffer.byteLength(SECRET));
  });

  it('never holds the plaintext, and uses a fresh iv each time', () => {
    const first = encryptEndpointSecret(KEY, ENDPOINT, SECRET);
    const second = encryptEndpointSecret(KEY, ENDPOINT, SECRET);
    expect(first).not.toBe(second);
    expect(first).not.toContain(SECRET.slice('whsec_'.length));
    expect(Buffer.from(first.split('.')[3], 'base64url').toString('utf8')).not.toContain('whsec_');
  });

  it('does not decrypt a ciphertext moved to another endpoint', () => {
    const ciphertext = encryptEndpointSecret(KEY, ENDPOINT, SECRET);
    expect(() => decryptEndpointSecret(KEY, OTHER_ENDPOINT, ciphertext)).toThrow(
      new SecretDecryptionError('The stored secret does not decrypt with this key for this endpoint'),
    );
  });

  it('does not decrypt under another key', () => {
    const ciphertext = encryptEndpointSecret(KEY, ENDPOINT, SECRET);
    expect(() => decryptEndpointSecret(randomBytes(32), ENDPOINT, ciphertext)).toThrow(SecretDecryptionError);
  });

  it('does not decrypt a ciphertext with one byte changed', () => {
    const [version, iv, tag, ciphertext] = encryptEndpointSecret(KEY, ENDPOINT, SECRET).split('.');
    const bytes = Buffer.from(ciphertext, 'base64url');
    bytes[0] ^= 1;
    const tampered = [version, iv, tag, bytes.toString('base64url')].join('.');
    expect(() => decryptEndpointSecret(KEY, ENDPOINT, tampered)).toThrow(SecretDecryptionError);
  });

  it.each(['', 'v2.a.b.c', 'v1.onlythree.parts', 'v1.AAAA.AAAA.AAAA'])('refuses the malformed text %p', (text) => {
    expect(() => decryptEndpointSecret(KEY, ENDPOINT, text)).toThrow('The stored secret is not in the v1 format');
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => encryptEndpointSecret(randomBytes(16), ENDPOINT, SECRET)).toThrow('The secret encryption key must be 32 bytes');
    expect(() => decryptEndpointSecret(randomBytes(31), ENDPOINT, 'v1.a.b.c')).toThrow('The secret encryption key must be 32 bytes');
  });
});
