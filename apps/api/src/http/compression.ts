import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context, Next } from 'koa';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Below this, compressing costs more than the bytes it saves: most single records stay plain. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

// Quality 4 (of 11): most of brotli's gain on JSON for a fraction of its default's CPU.
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };

/**
 * An answer that is JSON text already (what a library answered): sent and compressed like a JSON
 * body, without parsing it back to serialise it again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

function isJsonBody(body: unknown): body is object {
  return body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
}

/** Brotli whenever the caller accepts it (smaller, and cheap at quality 4), else gzip, else none. */
function preferredEncoding(ctx: Context): 'br' | 'gzip' | 'identity' {
  if (ctx.acceptsEncodings('br') === 'br') return 'br';
  if (ctx.acceptsEncodings('gzip') === 'gzip') return 'gzip';
  return 'identity';
}

/**
 * Compresses JSON answers over 1 KiB with brotli when Accept-Encoding allows it, else gzip when
 * it allows that; smaller answers, and callers that accept neither, get plain
 * JSON. Every JSON answer says `Vary: Accept-Encoding`, compressed or not, so caches keep them apart.
 */
export function compressJson() {
  return async (ctx: Context, next: Next) => {
    await next();
    if (!isJsonBody(ctx.body)) return;
    const serialised = ctx.body instanceof JsonText ? ctx.body.text : undefined;
    if (ctx.method === 'HEAD') {
      if (serialised !== undefined) ctx.body = serialised;
      return;
    }
    ctx.vary('Accept-Encoding');
    // Serialised here, once: Koa then sends the text as it is instead of serialising again.
    const text = serialised ?? JSON.stringify(ctx.body);
    // A UTF-16 unit is at most 3 bytes of UTF-8: most answers are told small without counting.
    const large = text.length * 3 > COMPRESSION_THRESHOLD_BYTES && Buffer.byteLength(text) > COMPRESSION_THRESHOLD_BYTES;
    const encoding = large ? preferredEncoding(ctx) : 'identity';
    const status = ctx.status;
    if (encoding === 'br' || encoding === 'gzip') {
      ctx.body = encoding === 'br' ? await brotli(text, BROTLI_OPTIONS) : await gzipAsync(text);
      ctx.set('Content-Encoding', encoding);
    } else {
      ctx.body = text;
    }
    ctx.status = status;
    ctx.type = 'application/json; charset=utf-8';
  };
}
