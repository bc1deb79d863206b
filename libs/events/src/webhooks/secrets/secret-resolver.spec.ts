import { randomBytes } from 'node:crypto';
import { generateEndpointSecret, hashEndpointSecret } from './endpoint-secret';
import { encryptEndpointSecret } from './secret-encryption';
import {
  builtInSecretResolver,
  resolveSigningSecrets,
  type EndpointSecrets,
  type StoredEndpointSecret,
  type WebhookSecretResolver,
} from './secret-resolver';

const KEY = randomBytes(32);
const ENDPOINT_ID = '0193f9a0-0000-7000-8000-000000000001';
const ORGANIZATION_ID = '0193f9a0-0000-7000-8000-0000000000aa';
const NOW = new Date('2026-01-01T12:00:00Z');

interface EndpointOptions {
  key?: Buffer;
  /** Seconds the rotation overlap still lasts at NOW (negative: over); absent: never rotated. */
  overlapLeftSeconds?: number;
}

/** An endpoint row as the create and rotate procedures leave it, with its plaintexts for the assertions. */
function endpointWithSecrets({ key = KEY, overlapLeftSeconds }: EndpointOptions = {}) {
  const current = generateEndpointSecret();
  const previous = generateEndpointSecret();
  const rotated = overlapLeftSeconds !== undefined;
  const endpoint: EndpointSecrets = {
    id: ENDPOINT_ID,
    organizationId: ORGANIZATION_ID,
    secretHash: hashEndpointSecret(current),
    secretCiphertext: encryptEndpointSecret(key, ENDPOINT_ID, current),
    previousSecretHash: rotated ? hashEndpointSecret(previous) : null,
    previousSecretCiphertext: rotated ? encryptEndpointSecret(key, ENDPOINT_ID, previous) : null,
    previousSecretExpiresAt: rotated ? new Date(NOW.getTime() + overlapLeftSeconds * 1000) : null,
  };
  return { endpoint, current, previous };
}

/** An operator's resolver backed by a map of plaintexts keyed by hash, recording what it was asked. */
function vaultResolver(plaintexts: readonly string[]): WebhookSecretResolver & { asked: StoredEndpointSecret[] } {
  const byHash = new Map(plaintexts.map((plaintext) => [hashEndpointSecret(plaintext), plaintext]));
  const asked: StoredEndpointSecret[] = [];
  return {
    asked,
    async resolve(secret) {
      asked.push(secret);
      return byHash.get(secret.secretHash) ?? null;
    },
  };
}

describe('builtInSecretResolver', () => {
  it('decrypts the stored copy', async () => {
    const { endpoint, current } = endpointWithSecrets();
    const stored = { endpointId: ENDPOINT_ID, organizationId: ORGANIZATION_ID, secretHash: endpoint.secretHash, secretCiphertext: endpoint.secretCiphertext };
    await expect(builtInSecretResolver(KEY).resolve(stored)).resolves.toBe(current);
  });

  it('has nothing without a key, without a stored copy, or when the copy was made under another key', async () => {
    const { endpoint } = endpointWithSecrets();
    const stored = { endpointId: ENDPOINT_ID, organizationId: ORGANIZATION_ID, secretHash: endpoint.secretHash, secretCiphertext: endpoint.secretCiphertext };
    await expect(builtInSecretResolver(undefined).resolve(stored)).resolves.toBeNull();
    await expect(builtInSecretResolver(KEY).resolve({ ...stored, secretCiphertext: null })).resolves.toBeNull();
    await expect(builtInSecretResolver(randomBytes(32)).resolve(stored)).resolves.toBeNull();
  });
});

describe('builtInSecretResolver keeps what it decrypted', () => {
  it('by endpoint and ciphertext: a rotated secret is decrypted afresh, and a copy moved to another endpoint still does not decrypt', async () => {
    const resolver = builtInSecretResolver(KEY);
    const first = endpointWithSecrets();
    const stored = { endpointId: ENDPOINT_ID, organizationId: ORGANIZATION_ID, secretHash: first.endpoint.secretHash, secretCiphertext: first.endpoint.secretCiphertext };
    await expect(resolver.resolve(stored)).resolves.toBe(first.current);
    await expect(resolver.resolve(stored)).resolves.toBe(first.current);

    const rotated = endpointWithSecrets();
    await expect(resolver.resolve({ ...stored, secretHash: rotated.endpoint.secretHash, secretCiphertext: rotated.endpoint.secretCiphertext })).resolves.toBe(
      rotated.current,
    );
    const elsewhere = '0193f9a0-0000-7000-8000-000000000002';
    await expect(resolver.resolve({ ...stored, endpointId: elsewhere })).resolves.toBeNull();
  });
});

describe('resolveSigningSecrets', () => {
  it('signs with the current secret alone when the endpoint was never rotated', async () => {
    const { endpoint, current } = endpointWithSecrets();
    await expect(resolveSigningSecrets(builtInSecretResolver(KEY), endpoint, NOW)).resolves.toEqual([current]);
  });

  it('signs with the current secret, then the previous one, while the rotation overlap lasts', async () => {
    const { endpoint, current, previous } = endpointWithSecrets({ overlapLeftSeconds: 1 });
    await expect(resolveSigningSecrets(builtInSecretResolver(KEY), endpoint, NOW)).resolves.toEqual([current, previous]);
  });

  it('drops the previous secret from the moment the overlap ends', async () => {
    const { endpoint, current } = endpointWithSecrets({ overlapLeftSeconds: 0 });
    await expect(resolveSigningSecrets(builtInSecretResolver(KEY), endpoint, NOW)).resolves.toEqual([current]);
    const past = endpointWithSecrets({ overlapLeftSeconds: -60 });
    await expect(resolveSigningSecrets(builtInSecretResolver(KEY), past.endpoint, NOW)).resolves.toEqual([past.current]);
  });

  it('signs with the current secret alone when the previous one cannot be resolved', async () => {
    const { endpoint, current } = endpointWithSecrets({ overlapLeftSeconds: 60 });
    await expect(resolveSigningSecrets(vaultResolver([current]), endpoint, NOW)).resolves.toEqual([current]);
  });

  it('asks an operator resolver with the endpoint, its organization and the stored hash', async () => {
    const { endpoint, current, previous } = endpointWithSecrets({ overlapLeftSeconds: 60 });
    const resolver = vaultResolver([current, previous]);
    await expect(resolveSigningSecrets(resolver, endpoint, NOW)).resolves.toEqual([current, previous]);
    expect(resolver.asked).toEqual([
      { endpointId: ENDPOINT_ID, organizationId: ORGANIZATION_ID, secretHash: endpoint.secretHash, secretCiphertext: endpoint.secretCiphertext },
      {
        endpointId: ENDPOINT_ID,
        organizationId: ORGANIZATION_ID,
        secretHash: endpoint.previousSecretHash,
        secretCiphertext: endpoint.previousSecretCiphertext,
      },
    ]);
  });

  describe('fails with "no plaintext secret available"', () => {
    it('without a key', async () => {
      const { endpoint } = endpointWithSecrets();
      await expect(resolveSigningSecrets(builtInSecretResolver(undefined), endpoint, NOW)).rejects.toThrow(
        new Error('no plaintext secret available'),
      );
    });

    it('without a stored copy', async () => {
      const { endpoint } = endpointWithSecrets();
      const withoutCopy = { ...endpoint, secretCiphertext: null };
      await expect(resolveSigningSecrets(builtInSecretResolver(KEY), withoutCopy, NOW)).rejects.toThrow('no plaintext secret available');
    });

    it('when a resolver answers a plaintext that does not hash to the stored hash', async () => {
      const { endpoint } = endpointWithSecrets();
      const liar: WebhookSecretResolver = { resolve: async () => generateEndpointSecret() };
      await expect(resolveSigningSecrets(liar, endpoint, NOW)).rejects.toThrow('no plaintext secret available');
    });

    it('when only the previous secret can be resolved', async () => {
      const { endpoint, previous } = endpointWithSecrets({ overlapLeftSeconds: 60 });
      await expect(resolveSigningSecrets(vaultResolver([previous]), endpoint, NOW)).rejects.toThrow('no plaintext secret available');
    });
  });

  it('passes on the error of a resolver that fails', async () => {
    const { endpoint } = endpointWithSecrets();
    const down: WebhookSecretResolver = {
      resolve: async () => {
        throw new Error('vault unreachable');
      },
    };
    await expect(resolveSigningSecrets(down, endpoint, NOW)).rejects.toThrow('vault unreachable');
  });
});
