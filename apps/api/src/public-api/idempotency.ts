import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from 'koa';
import {
  DomainError,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  badRequest,
  claimIdempotencyKey,
  findStoredAnswer,
  lostToKeptAnswer,
  runInTransaction,
  storeAnswer,
  storeAnswerAtCommit,
  type IdempotencyScope,
  type OutcomeRecorder,
  type StoredAnswer,
} from '@mrp/platform';
import { httpStatusFor } from '../http/error-status';
import type { HttpMethod } from './route-table';

/** The methods whose requests may carry an Idempotency-Key: the ones that change something. */
export const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(['post', 'patch', 'delete']);

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * What an Idempotency-Key may hold: printable ASCII (U+0020-U+007E), not only spaces. The OpenAPI
 * document declares this very pattern (with the length limit), so a client's tooling checks what
 * the server does.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[ -~]*[!-~][ -~]*$';
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The request's Idempotency-Key, checked (1-255 printable ASCII characters); undefined when it sent none. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const sent = ctx.headers['idempotency-key'];
  if (sent === undefined) return undefined;
  const key = Array.isArray(sent) ? sent.join(', ') : sent;
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw badRequest(`Idempotency-Key may hold at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  if (!IDEMPOTENCY_KEY.test(key)) throw badRequest('Idempotency-Key must be printable ASCII text, e.g. a UUID');
  return key;
}

/**
 * What makes two requests "the same request" for a key: method, path, query string, If-Match and
 * the parsed body (so whitespace does not count, property order does).
 */
export function requestFingerprint(ctx: Context, body: unknown): string {
  const parts = [ctx.method, ctx.path, ctx.querystring, ctx.get('If-Match'), body === undefined ? null : body];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** An answer as sent: kept for retries exactly as it went out the first time. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Thrown from inside the transaction when the key already has an answer for this very request. */
export class AnswerToReplay extends Error {
  override readonly name = 'AnswerToReplay';

  constructor(readonly answer: StoredAnswer) {
    super('An answer is kept for this Idempotency-Key');
  }
}

/**
 * A refusal the handler decided is the request's outcome, and kept (Stripe keeps the result of any
 * request that began executing). Not kept: 409 conflict (a concurrent change: "try again"), and
 * anything 5xx, so a retry can go through.
 */
export function keepsFailure(error: DomainError): boolean {
  const status = httpStatusFor(error.code);
  return status >= 400 && status < 500 && !NOT_KEPT.has(error.code);
}

/** A concurrent change ("try again"), and the key's own refusals, which say nothing about the request. */
const NOT_KEPT: ReadonlySet<string> = new Set(['conflict', 'idempotency_conflict', 'request_in_progress']);

export interface IdempotentRequest {
  scope: IdempotencyScope;
  requestHash: string;
  /** The answer to a success, built once: it is both kept and sent. */
  answerOf(output: unknown): HttpAnswer;
  /** The answer to a kept failure, as the error handler would send it. */
  failureAnswerOf(error: DomainError): HttpAnswer;
}

/**
 * Keeps the request's answer in the procedure's own transaction. `begin` takes the key's lock
 * (409 request_in_progress while another transaction holds it), then looks for a kept answer:
 * another request's is a 409 idempotency_conflict, this one's is replayed (AnswerToReplay).
 * `answer` holds what was kept, for the door to send after commit.
 */
export function idempotentOutcome(request: IdempotentRequest): OutcomeRecorder & { answer?: HttpAnswer } {
  /** The kept answer is this request's to replay, or another request's: a 409. */
  const settledBy = (kept: StoredAnswer): Error =>
    kept.requestHash === request.requestHash
      ? new AnswerToReplay(kept)
      : new DomainError(
          'idempotency_conflict',
          'This Idempotency-Key was used for another request (method, path, query, If-Match or body); a new request needs a new key',
        );
  /**
   * Keeps a failure's answer (in a transaction of its own, its change already rolled back), unless
   * another request kept one first: then that one is the key's answer. A success's answer goes with
   * its change's COMMIT instead (`succeeded`), and losing the same race fails that commit, so the
   * change is thrown away with it (`transactionFailed`).
   */
  const keep = async (em: EntityManager, answer: HttpAnswer) => {
    if (await storeAnswer(em, request.scope, { requestHash: request.requestHash, ...answer })) return;
    const kept = await findStoredAnswer(em, request.scope);
    if (!kept) throw new Error('An Idempotency-Key answer was neither stored nor found');
    throw settledBy(kept);
  };
  const recorder: OutcomeRecorder & { answer?: HttpAnswer } = {
    async begin(em) {
      const claim = await claimIdempotencyKey(em, request.scope);
      if (!claim.locked) {
        throw new DomainError('request_in_progress', 'A request with this Idempotency-Key is still running; retry once it has finished');
      }
      if (claim.stored) throw settledBy(claim.stored);
    },
    async succeeded(em, output) {
      // Sent with COMMIT: a transaction that loses the key to an answer kept first fails there (transactionFailed).
      const answer = request.answerOf(output);
      await storeAnswerAtCommit(em, request.scope, { requestHash: request.requestHash, ...answer });
      recorder.answer = answer;
    },
    async transactionFailed(em, error) {
      if (!lostToKeptAnswer(error)) return;
      recorder.answer = undefined;
      const kept = await findStoredAnswer(em, request.scope);
      if (!kept) throw new Error('An Idempotency-Key answer was neither stored nor found');
      throw settledBy(kept);
    },
    async failed(em, error) {
      if (!keepsFailure(error)) return false;
      await runInTransaction(em, (tx) => keep(tx, request.failureAnswerOf(error)));
      return true;
    },
  };
  return recorder;
}
