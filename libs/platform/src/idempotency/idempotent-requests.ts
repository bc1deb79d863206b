import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, executePreparedAtCommit } from '../database/driver/execute-prepared';
import { preparedStatement, type PreparedValue } from '../database/driver/prepared-statement';

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

// Prepared, like every statement on the write path: the lock and the lookup are one round trip.
// Parameters: lock name, credential, key.
const CLAIM_KEY = preparedStatement(
  `SELECT pg_try_advisory_xact_lock(hashtextextended($1::text, 0)) AS locked, r.request_hash, r.status, r.headers, r.body
     FROM (SELECT 1) AS one
     LEFT JOIN idempotent_requests r ON r.credential_id = $2::text AND r.key = $3::text AND r.expires_at > now()`,
  { purpose: 'idempotency key claim', indexes: ['idempotent_requests_pkey'] },
);

// A new answer, or one over an expired answer; nothing over a live one. Parameters: credential,
// key, request hash, status, headers, body, retention in hours (`answerValues`).
const UPSERT_ANSWER = `INSERT INTO idempotent_requests AS kept (credential_id, key, request_hash, status, headers, body, expires_at)
   VALUES ($1::text, $2::text, $3::text, $4::smallint, $5::jsonb, $6::text, now() + make_interval(hours => $7::int))
   ON CONFLICT (credential_id, key) DO UPDATE
     SET request_hash = excluded.request_hash, status = excluded.status, headers = excluded.headers,
         body = excluded.body, created_at = now(), expires_at = excluded.expires_at
     WHERE kept.expires_at <= now()`;

const STORE_ANSWER = preparedStatement(`${UPSERT_ANSWER}\n   RETURNING 1 AS stored`, {
  purpose: 'idempotent answer store',
  indexes: ['idempotent_requests_pkey'],
});

// The upsert, and then, only when it wrote nothing (a live answer holds the key), a plain INSERT of
// the same key: it fails with the unique violation on the primary key that the lost race is, so the
// transaction aborts before its COMMIT runs.
const KEEP_ANSWER_OR_FAIL = preparedStatement(
  `WITH stored AS (${UPSERT_ANSWER} RETURNING 1)
   INSERT INTO idempotent_requests (credential_id, key, request_hash, status, expires_at)
   SELECT $1::text, $2::text, $3::text, $4::smallint, now() WHERE NOT EXISTS (SELECT FROM stored)`,
  { purpose: 'idempotent answer kept with COMMIT', indexes: ['idempotent_requests_pkey'] },
);

/** The upsert's parameters; the body as text, exactly as it will be sent again (jsonb would reorder its keys). */
function answerValues(scope: IdempotencyScope, answer: StoredAnswer): PreparedValue[] {
  return [
    scope.credentialId,
    scope.key,
    answer.requestHash,
    answer.status,
    JSON.stringify(answer.headers),
    answer.body === null || answer.body === undefined ? null : JSON.stringify(answer.body),
    IDEMPOTENCY_RETENTION_HOURS,
  ];
}

interface ClaimRow {
  locked: boolean;
  request_hash: string | null;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
}

export interface KeyClaim {
  /** False: another transaction (in any process) holds the key right now. */
  locked: boolean;
  /** The answer kept for the key, unless it has expired (an expired one is as good as gone, and is replaced by the next store). */
  stored?: StoredAnswer;
}

/**
 * Takes the key for the rest of the transaction `em` is in, and reads its kept answer, in one
 * statement. The lock, not a row, says that a request is running: it goes with its transaction
 * however that ends, a crash included. The read sees the snapshot the statement started with, so
 * an answer committed by the transaction that released the lock an instant earlier can be missed:
 * `storeAnswer` then finds it and says so, and the caller answers with it instead (its own change
 * rolls back).
 */
export async function claimIdempotencyKey(em: EntityManager, scope: IdempotencyScope): Promise<KeyClaim> {
  const [row] = await executePrepared<ClaimRow>(em, CLAIM_KEY, [lockName(scope), scope.credentialId, scope.key]);
  if (row.request_hash === null) return { locked: row.locked };
  return { locked: row.locked, stored: storedAnswerOf(row as AnswerRow) };
}

interface AnswerRow {
  request_hash: string;
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

function storedAnswerOf(row: AnswerRow): StoredAnswer {
  return { requestHash: row.request_hash, status: row.status, headers: row.headers, body: row.body === null ? null : JSON.parse(row.body) };
}

/** The answer kept for the key, unless it has expired. */
export async function findStoredAnswer(em: EntityManager, scope: IdempotencyScope): Promise<StoredAnswer | undefined> {
  const [row] = await em.execute<AnswerRow[]>(
    `SELECT request_hash, status, headers, body FROM idempotent_requests
      WHERE credential_id = ? AND key = ? AND expires_at > now()`,
    [scope.credentialId, scope.key],
  );
  return row ? storedAnswerOf(row) : undefined;
}

/**
 * Keeps `answer` for the key, in the transaction `em` is in (the one of the change it answers), or
 * in a transaction of its own for a failure kept after its change rolled back. False when the key
 * already has a live answer (another request stored one first): nothing was written, and that
 * answer is the key's.
 */
export async function storeAnswer(em: EntityManager, scope: IdempotencyScope, answer: StoredAnswer): Promise<boolean> {
  const rows = await executePrepared(em, STORE_ANSWER, answerValues(scope, answer));
  return rows.length > 0;
}

/**
 * Keeps `answer` with the COMMIT of the transaction `em` is in (one round trip with it): the answer
 * of a change that succeeded. When another request kept an answer for the key first, the commit
 * fails instead, nothing of the transaction is written, and `lostToKeptAnswer` tells that error
 * apart; the key's answer is then the other one (`findStoredAnswer`).
 */
export async function storeAnswerAtCommit(em: EntityManager, scope: IdempotencyScope, answer: StoredAnswer): Promise<void> {
  await executePreparedAtCommit(em, KEEP_ANSWER_OR_FAIL, answerValues(scope, answer));
}

/** Whether a failed commit is `storeAnswerAtCommit` finding the key's answer already kept. */
export function lostToKeptAnswer(error: unknown): boolean {
  const fields = error as { code?: unknown; constraint?: unknown } | null;
  return typeof fields === 'object' && fields !== null && fields.code === '23505' && fields.constraint === 'idempotent_requests_pkey';
}
