import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { DomainError } from '@mrp/platform';
import { parseJsonWithinDepth } from './json-depth';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Whether the request declares a JSON body, whether or not one follows (Koa's `is` needs a body). */
export function hasJsonContentType(ctx: Context): boolean {
  return ctx.request.type.trim().toLowerCase() === 'application/json';
}

export function unsupportedMediaType(): DomainError {
  return new DomainError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
}

/**
 * Reads a JSON request body: JSON content type only (415), at most 1 MiB (413), well-formed and
 * not absurdly nested (400).
 * An empty body reads as `undefined` so each door decides what absence means.
 */
export async function readJsonBody(ctx: Context): Promise<unknown> {
  const length = ctx.request.length;
  const hasBody = (length !== undefined && length > 0) || ctx.get('Transfer-Encoding') !== '';
  if (!hasBody) return undefined;
  if (!hasJsonContentType(ctx)) throw unsupportedMediaType();
  let text: string;
  try {
    text = await getRawBody(ctx.req, { length, limit: MAX_BODY_BYTES, encoding: 'utf-8' });
  } catch (error) {
    // The rest of the body is left unread (e.g. a chunked body over the limit): a kept-alive
    // connection would then hang the client's next request, so this one is closed after the answer.
    ctx.set('Connection', 'close');
    throw error;
  }
  if (text.trim() === '') return undefined;
  const parsed = parseJsonWithinDepth(text);
  if ('error' in parsed) throw new DomainError('bad_request', `Malformed JSON body: ${parsed.error}`);
  return parsed.value;
}
