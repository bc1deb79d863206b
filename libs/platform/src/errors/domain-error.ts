/**
 * Every failure a caller can see is a DomainError with a code. Only the HTTP layer knows
 * which status a code becomes (one exhaustive map in the api app).
 */
export const ERROR_CODES = [
  'bad_request',
  'validation_failed',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'idempotency_conflict',
  'request_in_progress',
  'precondition_failed',
  'public_api_disabled',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'service_unavailable',
  'query_timeout',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
}

export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers the HTTP layer should send (e.g. Retry-After). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new DomainError('bad_request', message);
export const validationFailed = (details: ErrorDetail[], message = 'The request is invalid') =>
  new DomainError('validation_failed', message, details);
export const unauthorized = (message = 'A valid credential is required') => new DomainError('unauthorized', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const conflict = (message: string) => new DomainError('conflict', message);
export const preconditionFailed = (message = 'The resource has changed since the version the request names') =>
  new DomainError('precondition_failed', message);

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
