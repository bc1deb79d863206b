import { DomainError } from '../errors/domain-error';
import { QUERY_CANCELED } from './driver/statement-cancel';

/** Seconds a caller is told to wait before trying again when the database could not serve it in time. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** A restart or failover is over in seconds: the caller may come back sooner than after a timeout. */
export const DATABASE_UNREACHABLE_RETRY_AFTER_SECONDS = 2;

const POOL_TIMEOUT = 'Timeout acquiring a connection';

/**
 * SQLSTATEs of a database that is going away or not there yet: class 08 (connection exceptions),
 * 57P01-57P03 (administrator or crash shutdown, "the database system is starting up"), 53300 (too
 * many connections).
 */
const UNREACHABLE_SQL_STATE = /^(08...|57P0[1-3]|53300)$/;

/** Socket errors of a connection that could not be made or was lost (Node's errno codes). */
const UNREACHABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** What the `pg` client says when its connection ended under it (it sets no code for these). */
const CONNECTION_LOST_MESSAGES = ['Connection terminated', 'Connection ended unexpectedly', 'Client has encountered a connection error', 'is not queryable'];

function isUnreachable(error: object): boolean {
  const state = sqlStateOf(error);
  if (typeof state === 'string' && (UNREACHABLE_SQL_STATE.test(state) || UNREACHABLE_SOCKET_CODES.has(state))) return true;
  const message = error instanceof Error ? error.message : '';
  return CONNECTION_LOST_MESSAGES.some((lost) => message.includes(lost));
}

function sqlStateOf(error: object): unknown {
  const fields = error as { code?: unknown; sqlState?: unknown };
  return fields.sqlState ?? fields.code;
}

/**
 * The database failures a caller is told about as "try again later" rather than as our fault:
 * - a statement cancelled (SQLSTATE 57014: statement_timeout, or a cancel request) is
 *   `query_timeout`: the request asked for more work than one statement may do;
 * - no pooled connection within the pool's acquire timeout ("Timeout acquiring a connection") is
 *   `service_unavailable`;
 * - a database that could not be reached, or was lost mid-request (a restart, a failover, a
 *   terminated backend, a refused or reset connection), is `service_unavailable` too. The work
 *   may or may not have been done (a COMMIT whose answer never came): the caller retries with its
 *   Idempotency-Key, which replays the first outcome if there was one.
 * All carry Retry-After. Anything else: undefined (an unexpected error, a 500).
 */
export function databaseFailure(error: unknown): DomainError | undefined {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (sqlStateOf(cause) === QUERY_CANCELED) {
      return new DomainError('query_timeout', 'The query took longer than allowed and was stopped: narrow the filter or try again later', undefined, {
        'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
      });
    }
    if (cause instanceof Error && cause.message.includes(POOL_TIMEOUT)) {
      return new DomainError('service_unavailable', 'The database is busy: try again shortly', undefined, {
        'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
      });
    }
    if (isUnreachable(cause)) {
      return new DomainError(
        'service_unavailable',
        'The database could not be reached; the request may not have been applied: retry it (with the same Idempotency-Key for a write) shortly',
        undefined,
        { 'Retry-After': String(DATABASE_UNREACHABLE_RETRY_AFTER_SECONDS) },
      );
    }
  }
  return undefined;
}
