import baseX from 'base-x';

const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = baseX(BASE62_ALPHABET);

export const BASE62_PATTERN = /^[0-9A-Za-z]*$/;

/**
 * Base62 of `bytes`, left-padded with '0' (the zero digit) to exactly `length` characters, so
 * every token has the same shape whatever its leading bytes. base-x writes each leading zero
 * byte as one '0' and the rest as a number, so padding keeps the value: it is canonical.
 */
export function encodeBase62Fixed(bytes: Uint8Array, length: number): string {
  const encoded = base62.encode(bytes);
  if (encoded.length > length) {
    throw new Error(`${bytes.length} bytes do not fit in ${length} base62 characters`);
  }
  return encoded.padStart(length, BASE62_ALPHABET[0]);
}
