import { encodeBase62Fixed } from './base62';

describe('encodeBase62Fixed', () => {
  it('pads to the fixed width with the zero digit, keeping the value', () => {
    expect(encodeBase62Fixed(Buffer.from([0, 0, 0, 1]), 6)).toBe('000001');
    expect(encodeBase62Fixed(Buffer.from([0, 0, 0, 62]), 6)).toBe('000010');
    expect(encodeBase62Fixed(Buffer.alloc(32), 43)).toBe('0'.repeat(43));
  });

  it('fits the largest 32-byte and 4-byte values exactly', () => {
    expect(encodeBase62Fixed(Buffer.alloc(32, 0xff), 43)).toHaveLength(43);
    expect(encodeBase62Fixed(Buffer.alloc(4, 0xff), 6)).toBe('4gfFC3');
  });

  it('refuses a width too small for the bytes', () => {
    expect(() => encodeBase62Fixed(Buffer.alloc(32, 0xff), 42)).toThrow('do not fit');
  });
});
