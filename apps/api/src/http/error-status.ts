import type { ErrorCode } from '@mrp/platform';

/** The one place a domain error code becomes an HTTP status. Adding a code without a status fails to compile. */
export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case 'bad_request':
    case 'validation_failed':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
    case 'public_api_disabled':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'conflict':
    case 'idempotency_conflict':
    case 'request_in_progress':
      return 409;
    case 'precondition_failed':
      return 412;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'rate_limited':
      return 429;
    case 'internal_error':
      return 500;
    case 'service_unavailable':
    case 'query_timeout':
      return 503;
    default:
      return assertNever(code);
  }
}

function assertNever(code: never): never {
  throw new Error(`Unmapped error code ${String(code)}`);
}
