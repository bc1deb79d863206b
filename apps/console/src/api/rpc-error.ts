/** One problem with one input, as the server reports it in `error.details[]`. */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
}

/**
 * A failed call: the server's error shape (`code`, `message`, `details`) plus the HTTP status and
 * the request id, which support needs to find the request in the logs. A call that never got an
 * answer has status 0 and code `network_error`.
 */
export class RpcError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly requestId: string;

  constructor(init: { code: string; message: string; status: number; requestId: string; details?: ErrorDetail[] }) {
    super(init.message);
    this.name = 'RpcError';
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details ?? [];
  }
}

export function isRpcError(error: unknown): error is RpcError {
  return error instanceof RpcError;
}

/** What went wrong, in plain words: the code decides the opening, the server's message says the rest. */
export function describeError(error: unknown): { title: string; message: string; requestId?: string; details: ErrorDetail[] } {
  if (!isRpcError(error)) {
    return { title: 'Something went wrong', message: error instanceof Error ? error.message : String(error), details: [] };
  }
  const { code, message, requestId, details } = error;
  const titles: Record<string, string> = {
    network_error: 'The server could not be reached',
    bad_response: 'The server sent an answer the console does not understand',
    unauthorized: 'Your session is no longer valid',
    forbidden: 'You do not have permission to do this',
    not_found: 'Not found',
    validation_failed: 'Some values were refused',
    bad_request: 'The request was refused',
    conflict: 'This conflicts with something that already exists',
    rate_limited: 'Too many requests: wait a moment and try again',
    payload_too_large: 'This is too large to send',
    internal_error: 'Something went wrong on our side',
    service_unavailable: 'The service is unavailable right now: try again shortly',
    query_timeout: 'That took too long and was stopped: narrow the filter, or try again shortly',
  };
  return { title: titles[code] ?? 'The request failed', message, requestId, details };
}

/** The server's `details[]` keyed by field, for forms: the first message of each field wins. */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!isRpcError(error)) return {};
  const byField: Record<string, string> = {};
  for (const detail of error.details) byField[detail.field] ??= detail.message;
  return byField;
}
