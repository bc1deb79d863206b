import type { EntityManager } from '@mikro-orm/postgresql';

/** How long an answer is kept for retries (Stripe's window). */
export const IDEMPOTENCY_RETENTION_HOURS = 24;

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Whose key it is: keys of different credentials never meet, whatever their text. */
export interface IdempotencyScope {
  credentialId: string;
  key: string;
}

/** A request's answer as sent, and the fingerprint of the request it answered. */
export interface StoredAnswer {
  requestHash: string;
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The JSON body; null for none. */
  body: unknown;
}

const lockName = ({ credentialId, key }: IdempotencyScope) => `idempotency:${credentialId}:${key}`;

/**
 * Takes the key for the rest of the transaction `em` is in; false at once while another
 * transaction (in any process) holds it. The lock, not a row, says that a request is running: it
 * goes with its transaction however that ends, a crash included.
 */
export async function lockIdempotencyKey(em: EntityManager, scope: IdempotencyScope): Promise<boolean> {
  const [row] = await em.execute<Array<{ locked: boolean }>>('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS locked', [
    lockName(scope),
  ]);
  return row.locked;
}

interface AnswerRow {
  request_hash: string;
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** The answer kept for the key, unless it has expired (an expired one is as good as gone, and is replaced by the next store). */
export async function findStoredAnswer(em: EntityManager, scope: IdempotencyScope): Promise<StoredAnswer | undefined> {
  const [row] = await em.execute<AnswerRow[]>(
    `SELECT request_hash, status, headers, body FROM idempotent_requests
      WHERE credential_id = ? AND key = ? AND expires_at > now()`,
    [scope.credentialId, scope.key],
  );
  if (!row) return undefined;
  return { requestHash: row.request_hash, status: row.status, headers: row.headers, body: row.body === null ? null : JSON.parse(row.body) };
}

/**
 * Keeps `answer` for the key, in the transaction `em` is in (the one of the change it answers).
 * Called under the key's lock after `findStoredAnswer` found none, so the only row it can meet is
 * an expired one, which it replaces.
 */
export async function storeAnswer(em: EntityManager, scope: IdempotencyScope, answer: StoredAnswer): Promise<void> {
  // The body as text, exactly as it will be sent again: jsonb would reorder its keys.
  await em.execute(
    `INSERT INTO idempotent_requests AS kept (credential_id, key, request_hash, status, headers, body, expires_at)
     VALUES (?, ?, ?, ?, ?::jsonb, ?, now() + make_interval(hours => ?))
     ON CONFLICT (credential_id, key) DO UPDATE
       SET request_hash = excluded.request_hash, status = excluded.status, headers = excluded.headers,
           body = excluded.body, created_at = now(), expires_at = excluded.expires_at
       WHERE kept.expires_at <= now()`,
    [
      scope.credentialId,
      scope.key,
      answer.requestHash,
      answer.status,
      JSON.stringify(answer.headers),
      answer.body === null || answer.body === undefined ? null : JSON.stringify(answer.body),
      IDEMPOTENCY_RETENTION_HOURS,
    ],
  );
}
