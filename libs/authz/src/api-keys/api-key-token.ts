import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BASE62_PATTERN, encodeBase62Fixed } from './base62';

/**
 * `mrk_` + 32 random bytes in base62 (43 chars) + base62 CRC32 of those 43 chars (6 chars).
 * The checksum lets us reject typos and garbage without touching the database, and lets secret
 * scanners tell a real key from a look-alike.
 */
export const API_KEY_TOKEN_PREFIX = 'mrk_';
const RANDOM_BYTES = 32;
// ceil(256 / log2(62)) = 43: the longest base62 form of 32 bytes.
const RANDOM_CHARS = 43;
// ceil(32 / log2(62)) = 6.
const CHECKSUM_CHARS = 6;
export const API_KEY_TOKEN_LENGTH = API_KEY_TOKEN_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS;
/** What lists show so a person can tell their keys apart; far too short to guess the rest. */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 12;

export interface GeneratedApiKeyToken {
  /** The plaintext: handed to the caller once, never stored, never logged. */
  token: string;
  prefix: string;
  /** SHA-256 hex of the whole token; the only form that is stored. */
  hash: string;
}

export function hashApiKeyToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function checksumOf(randomPart: string): string {
  const crc = crc32(randomPart);
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc >>> 0);
  return encodeBase62Fixed(bytes, CHECKSUM_CHARS);
}

export function generateApiKeyToken(): GeneratedApiKeyToken {
  const randomPart = encodeBase62Fixed(randomBytes(RANDOM_BYTES), RANDOM_CHARS);
  const token = `${API_KEY_TOKEN_PREFIX}${randomPart}${checksumOf(randomPart)}`;
  return { token, prefix: token.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH), hash: hashApiKeyToken(token) };
}

/**
 * The hash to look a presented token up by, or null when it cannot be one of ours: wrong
 * prefix, length or alphabet, or a checksum that does not match (a typo).
 */
export function parseApiKeyToken(raw: string): { hash: string } | null {
  if (typeof raw !== 'string' || raw.length !== API_KEY_TOKEN_LENGTH || !raw.startsWith(API_KEY_TOKEN_PREFIX)) {
    return null;
  }
  const body = raw.slice(API_KEY_TOKEN_PREFIX.length);
  if (!BASE62_PATTERN.test(body)) return null;
  const randomPart = body.slice(0, RANDOM_CHARS);
  if (checksumOf(randomPart) !== body.slice(RANDOM_CHARS)) return null;
  return { hash: hashApiKeyToken(raw) };
}
