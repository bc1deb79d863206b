import type { Context, Next } from 'koa';
import { DomainError, databaseFailure, isDomainError, type Logger } from '@mrp/platform';
import { httpStatusFor } from './error-status';
import { requestState } from './request-context';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

/** Errors thrown by the HTTP plumbing itself (body reading, routing) expressed as domain errors. */
function fromHttpError(error: unknown): DomainError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode, type } = error as HttpLikeError;
  const code = status ?? statusCode;
  if (type === 'entity.too.large' || code === 413) {
    return new DomainError('payload_too_large', 'The request body exceeds 1 MiB');
  }
  // Aborted while being read, or before (the client went away): the client's doing, never our failure.
  if (type === 'request.aborted' || type === 'stream.not.readable') return new DomainError('bad_request', 'The request was aborted');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new DomainError('unsupported_media_type', 'The request body must be UTF-8 JSON');
  }
  return undefined;
}

/**
 * A database failure as the caller is told it: a statement cancelled because the client went
 * away is the client's doing (an aborted request, as fromHttpError says), never a timeout of ours.
 */
function fromDatabase(ctx: Context, error: unknown): DomainError | undefined {
  const failure = databaseFailure(error);
  if (failure?.code === 'query_timeout' && requestState(ctx).clientGone) return new DomainError('bad_request', 'The request was aborted');
  return failure;
}

/** The contract's error shape, with the request's id (its X-Request-Id) for support to find its log lines. */
export function errorBody(error: DomainError, requestId: string) {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details?.length ? { details: error.details } : {}),
      requestId,
    },
  };
}

export function sendError(ctx: Context, error: DomainError): void {
  ctx.status = httpStatusFor(error.code);
  ctx.body = errorBody(error, requestState(ctx).requestId);
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  if (error.code === 'unauthorized') ctx.set('WWW-Authenticate', 'Bearer');
}

/** A failure as the caller is told it; an unexpected one is logged with its stack and told as a bare internal error. */
export function answeredError(ctx: Context, error: unknown, logger: Logger): DomainError {
  const domainError = isDomainError(error) ? error : (fromHttpError(error) ?? fromDatabase(ctx, error));
  if (domainError) return domainError;
  (ctx.state.log ?? logger).error({ err: error }, 'unhandled error');
  return new DomainError('internal_error', 'Something went wrong on our side; the request id identifies it');
}

/**
 * Turns every failure into the contract's error shape. A statement stopped by its timeout and a
 * pool that had no connection in time are 503s with Retry-After (`databaseFailure`). Unexpected
 * errors are logged with their stack and answered with a bare 500: a stack trace never reaches a client.
 */
export function errorHandler(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new DomainError('not_found', `No route for ${ctx.method} ${ctx.path}`);
      }
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (error) {
      sendError(ctx, answeredError(ctx, error, logger));
    }
  };
}
