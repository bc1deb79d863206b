import { generateEndpointSecret, hashEndpointSecret } from './endpoint-secret';

describe('endpoint secrets', () => {
  it('are whsec_ followed by 32 random bytes in base64', () => {
    const secret = generateEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });

  it('are never the same twice', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateEndpointSecret));
    expect(secrets.size).toBe(100);
  });

  it('are stored as the SHA-256 hex of the whole string', () => {
    // printf '%s' whsec_example | sha256sum
    expect(hashEndpointSecret('whsec_example')).toBe('7ea5eff04c598e380fed0b174cfc56a5194f471bc4543fa034ff19f7020f2084');
  });
});
