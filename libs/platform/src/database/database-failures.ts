import { DomainError } from '../errors/domain-error';
import { QUERY_CANCELED } from './statement-cancel';

/** Seconds a caller is told to wait before trying again when the database could not serve it in time. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const POOL_TIMEOUT = 'Timeout acquiring a connection';

function sqlStateOf(error: object): unknown {
  const fields = error as { code?: unknown; sqlState?: unknown };
  return fields.sqlState ?? fields.code;
}

/**
 * The database failures a caller is told about as "try again later" rather than as our fault:
 * - a statement cancelled (SQLSTATE 57014: statement_timeout, or a cancel request) is
 *   `query_timeout`: the request asked for more work than one statement may do;
 * - no pooled connection within the pool's acquire timeout ("Timeout acquiring a connection") is
 *   `service_unavailable`.
 * Both carry Retry-After. Anything else: undefined (an unexpected error, a 500).
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
  }
  return undefined;
}
