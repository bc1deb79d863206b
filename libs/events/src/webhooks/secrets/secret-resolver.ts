import { timingSafeEqual } from 'node:crypto';
import { hashEndpointSecret } from './endpoint-secret';
import { decryptEndpointSecret } from './secret-encryption';

/** One stored secret of an endpoint, as a resolver sees it. */
export interface StoredEndpointSecret {
  endpointId: string;
  /** null: a platform-wide endpoint. */
  organizationId: string | null;
  secretHash: string;
  /** The built-in resolver's encrypted copy; null when none was kept. */
  secretCiphertext: string | null;
}

/**
 * Finds the plaintext of a stored secret at signing time: the built-in one decrypts the stored
 * copy, an operator's may ask a vault. null means "not available"; the attempt then fails.
 */
export interface WebhookSecretResolver {
  resolve(secret: StoredEndpointSecret): Promise<string | null>;
}

/** The secret columns of a webhook endpoint row. */
export interface EndpointSecrets {
  id: string;
  organizationId: string | null;
  secretHash: string;
  secretCiphertext: string | null;
  previousSecretHash: string | null;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The contract's words for an attempt that cannot be signed. */
export const NO_PLAINTEXT_SECRET = 'no plaintext secret available';

export class NoPlaintextSecretError extends Error {
  override readonly name = 'NoPlaintextSecretError';

  constructor() {
    super(NO_PLAINTEXT_SECRET);
  }
}

/** Decrypted copies a built-in resolver keeps; past it they are dropped and decrypted again. */
const KEPT_PLAINTEXTS = 1_000;

/**
 * Decrypts the stored copy under WEBHOOK_SECRET_ENCRYPTION_KEY; nothing without a key or a copy.
 * A decryption is a pure function of the key, the endpoint and the ciphertext, so its result is
 * kept by endpoint and ciphertext (a rotation stores a new ciphertext): every delivery to an
 * endpoint decrypted the same secret again, a cipher set up each time.
 */
export function builtInSecretResolver(key: Buffer | undefined): WebhookSecretResolver {
  const kept = new Map<string, string>();
  return {
    async resolve({ endpointId, secretCiphertext }) {
      if (!key || !secretCiphertext) return null;
      const copy = `${endpointId}:${secretCiphertext}`;
      const known = kept.get(copy);
      if (known !== undefined) return known;
      try {
        const plaintext = decryptEndpointSecret(key, endpointId, secretCiphertext);
        if (kept.size >= KEPT_PLAINTEXTS) kept.clear();
        kept.set(copy, plaintext);
        return plaintext;
      } catch {
        // Another key (rotated, or a restored backup): the secret is unavailable, not an outage.
        return null;
      }
    },
  };
}

function matchesHash(plaintext: string, storedHash: string): boolean {
  const actual = Buffer.from(hashEndpointSecret(plaintext), 'utf8');
  const expected = Buffer.from(storedHash, 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A resolver's answer counts only when it hashes to the stored hash: a wrong secret would sign garbage. */
async function resolveVerified(resolver: WebhookSecretResolver, secret: StoredEndpointSecret): Promise<string | null> {
  const plaintext = await resolver.resolve(secret);
  return typeof plaintext === 'string' && matchesHash(plaintext, secret.secretHash) ? plaintext : null;
}

/**
 * The secrets a delivery is signed with: the current one, then the previous one while its rotation
 * overlap lasts (`now` before `previousSecretExpiresAt`) and it can be resolved. Throws
 * NoPlaintextSecretError ("no plaintext secret available") when the current one cannot. A resolver
 * that throws (its vault is down) fails the attempt with its own error.
 */
export async function resolveSigningSecrets(
  resolver: WebhookSecretResolver,
  endpoint: EndpointSecrets,
  now: Date,
): Promise<string[]> {
  const current = await resolveVerified(resolver, {
    endpointId: endpoint.id,
    organizationId: endpoint.organizationId,
    secretHash: endpoint.secretHash,
    secretCiphertext: endpoint.secretCiphertext,
  });
  if (current === null) throw new NoPlaintextSecretError();

  const { previousSecretHash, previousSecretExpiresAt } = endpoint;
  const overlapOver =
    previousSecretHash === null || previousSecretExpiresAt === null || now.getTime() >= previousSecretExpiresAt.getTime();
  if (overlapOver) return [current];
  const previous = await resolveVerified(resolver, {
    endpointId: endpoint.id,
    organizationId: endpoint.organizationId,
    secretHash: previousSecretHash,
    secretCiphertext: endpoint.previousSecretCiphertext,
  });
  return previous === null ? [current] : [current, previous];
}
