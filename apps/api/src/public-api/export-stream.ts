import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { csvErrorTrailer, csvHeader, type ExportFormat, type RecordExport } from '@mrp/data-models';
import type { DomainError, Logger } from '@mrp/platform';
import { answeredError, errorBody } from '../http/error-handler';
import { requestState } from '../http/request-context';

type PageResult = IteratorResult<Buffer[], void>;

export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };

/** Keys are lowercase letters, digits and underscores already; anything else never reaches the header. */
function attachmentName(model: string, format: ExportFormat): string {
  return `${model.replace(/[^A-Za-z0-9_-]/g, '_')}.${format}`;
}

interface ExportWriter {
  header(): string;
  /** The last line of an export that failed after its first byte. */
  failure(error: DomainError, requestId: string): string;
}

function writerFor({ format, columns }: RecordExport): ExportWriter {
  if (format === 'csv') {
    return {
      header: () => csvHeader(columns),
      failure: (error) => csvErrorTrailer(error.code, error.message),
    };
  }
  return {
    header: () => '',
    failure: (error, requestId) => `${JSON.stringify(errorBody(error, requestId))}\n`,
  };
}

/** How often, while a page is read, a client that stopped sending is probed by writing one byte held back. */
const PROBE_INTERVAL_MS = 250;
/**
 * Bytes of each page held back for probes: two writes to a client that has gone tell it, the
 * first drawing a reset, the second failing. Every page ends with two ASCII characters (CRLF, `}` LF).
 */
const PROBE_BYTES = 2;

const EMPTY: Buffer = Buffer.alloc(0);

class ClientGone extends Error {
  constructor() {
    super('The client went away during the export');
  }
}

/** Writes `chunk`, resolving once the response can take more (backpressure), rejecting when it closes first. */
function written(response: ServerResponse, chunk: string | Buffer): Promise<void> {
  if (response.destroyed) return Promise.reject(new ClientGone());
  if (response.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (gone: boolean) => () => {
      response.off('drain', onDrain);
      response.off('close', onClose);
      if (gone) reject(new ClientGone());
      else resolve();
    };
    const onDrain = settle(false);
    const onClose = settle(true);
    response.once('drain', onDrain);
    response.once('close', onClose);
  });
}

/**
 * Writes an export as it reads it, a page at a time (the next one read while one is written) and
 * only as fast as the client takes it (backpressure), so memory stays that of two pages whatever
 * the export's size. The first page was
 * read before anything is sent: a failure until then is an ordinary error answer. A failure after
 * it ends the stream with the format's error line, never a silent truncation.
 *
 * A client that goes away stops the export: the request's departure watch (still running while
 * this is awaited) cancels the page being read. One that closed its connection cleanly only
 * stopped sending, as far as the server can tell (connections are kept half-open, see
 * client-departure.ts), and once the headers are out no `102` may probe it. So the last bytes of
 * each page are held back, and while the next page is read such a client is probed by writing them
 * one at a time: a client that is gone answers the first with a reset, and the second write fails.
 */
export async function sendExport(
  ctx: Context,
  exported: RecordExport,
  first: PageResult,
  nextPage: () => Promise<PageResult>,
  logger: Logger,
): Promise<void> {
  const { requestId, log } = requestState(ctx);
  const writer = writerFor(exported);
  const response = ctx.res;
  const socket = ctx.req.socket;
  let held: Buffer = EMPTY;
  let reading: Promise<PageResult> | undefined;
  // Each piece is written as it is (never joined to what was held: a copy of every piece), and
  // only a page's last piece leaves bytes held.
  const send = async (piece: Buffer, hold: boolean) => {
    if (held.length > 0) {
      const before = held;
      held = EMPTY;
      await written(response, before);
    }
    const now = hold ? piece.subarray(0, -PROBE_BYTES) : piece;
    // A copy of the last bytes: a view would keep the whole piece alive until they are written.
    if (hold) held = Buffer.from(piece.subarray(-PROBE_BYTES));
    if (now.length > 0) await written(response, now);
  };
  const probe = setInterval(() => {
    if (held.length === 0 || !socket.readableEnded || response.destroyed) return;
    response.write(held.subarray(0, 1));
    held = held.subarray(1);
  }, PROBE_INTERVAL_MS);
  probe.unref();

  ctx.status = 200;
  ctx.type = EXPORT_MEDIA_TYPES[exported.format];
  ctx.set('Content-Disposition', `attachment; filename="${attachmentName(exported.model, exported.format)}"`);
  ctx.set('Cache-Control', 'no-store');
  // Koa writes nothing: this does, and ends the response.
  ctx.respond = false;
  if (ctx.method === 'HEAD') {
    // The headers only: the rest would be read for nothing.
    response.end();
    clearInterval(probe);
    await exported.pages.return();
    return;
  }
  try {
    let page = first;
    await send(Buffer.from(writer.header()), false);
    try {
      while (!page.done) {
        // The next page is read while this one is written: the database and this process work at once.
        const next = nextPage();
        next.catch(() => undefined);
        reading = next;
        const pieces = page.value;
        for (let index = 0; index < pieces.length; index++) {
          const piece = pieces[index];
          // A piece written is garbage at once, not kept by its page until the page's end.
          pieces[index] = EMPTY;
          await send(piece, index === pieces.length - 1);
        }
        page = await next;
      }
    } catch (error) {
      if (error instanceof ClientGone || response.destroyed) throw error;
      const failure = answeredError(ctx, error, logger);
      log.warn({ code: failure.code }, 'export failed after its first byte');
      await send(Buffer.from(writer.failure(failure, requestId)), false);
    }
    await send(EMPTY, false);
    response.end();
  } catch (error) {
    // The client went away mid-stream: nobody to tell.
    log.info({ err: error instanceof ClientGone ? undefined : error }, 'export ended before the client read it all');
    response.destroy();
  } finally {
    clearInterval(probe);
    // A page still being read (the client left while it was written) settles first: cancelled, or read and dropped.
    await reading?.catch(() => undefined);
    await exported.pages.return();
  }
}
