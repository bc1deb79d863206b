import { createHash } from 'node:crypto';
import { API_KEY_TOKEN_LENGTH, generateApiKeyToken, parseApiKeyToken } from './api-key-token';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Replaces one character of the token with a different base62 character. */
function typo(token: string, index: number): string {
  const replacement = BASE62[(BASE62.indexOf(token[index]) + 1) % BASE62.length];
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe('API key tokens', () => {
  it('are mrk_ + 43 base62 characters + a 6-character checksum, 53 in all', () => {
    const { token } = generateApiKeyToken();
    expect(token).toMatch(/^mrk_[0-9A-Za-z]{49}$/);
    expect(token).toHaveLength(53);
    expect(API_KEY_TOKEN_LENGTH).toBe(53);
  });

  it('shows the first 12 characters as the prefix', () => {
    const { token, prefix } = generateApiKeyToken();
    expect(prefix).toBe(token.slice(0, 12));
    expect(prefix).toMatch(/^mrk_[0-9A-Za-z]{8}$/);
  });

  it('stores the SHA-256 hex of the whole token', () => {
    const { token, hash } = generateApiKeyToken();
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(parseApiKeyToken(token)).toEqual({ hash });
  });

  it('never repeats', () => {
    const tokens = new Set(Array.from({ length: 500 }, () => generateApiKeyToken().token));
    expect(tokens.size).toBe(500);
  });

  it('keeps a fixed length whatever the random bytes (many samples all parse)', () => {
    for (let i = 0; i < 2000; i++) {
      const { token } = generateApiKeyToken();
      expect(token).toHaveLength(53);
      expect(parseApiKeyToken(token)).not.toBeNull();
    }
  });

  it('rejects a one-character typo anywhere after the prefix', () => {
    const { token } = generateApiKeyToken();
    for (let index = 4; index < token.length; index++) {
      expect(parseApiKeyToken(typo(token, index))).toBeNull();
    }
  });

  it('rejects two swapped neighbouring characters', () => {
    let token = generateApiKeyToken().token;
    while (token[10] === token[11]) token = generateApiKeyToken().token;
    const swapped = token.slice(0, 10) + token[11] + token[10] + token.slice(12);
    expect(parseApiKeyToken(swapped)).toBeNull();
  });

  it('rejects the wrong prefix, length or alphabet', () => {
    const { token } = generateApiKeyToken();
    expect(parseApiKeyToken(`mrx_${token.slice(4)}`)).toBeNull();
    expect(parseApiKeyToken(token.slice(0, -1))).toBeNull();
    expect(parseApiKeyToken(`${token}0`)).toBeNull();
    expect(parseApiKeyToken(`${token.slice(0, 20)}-${token.slice(21)}`)).toBeNull();
    expect(parseApiKeyToken(`${token.slice(0, 20)} ${token.slice(21)}`)).toBeNull();
    expect(parseApiKeyToken('')).toBeNull();
    expect(parseApiKeyToken('Bearer whatever')).toBeNull();
    expect(parseApiKeyToken(`mrk_${'0'.repeat(49)}`)).toBeNull();
  });
});
