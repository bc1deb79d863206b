import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { DomainError, newId } from '@mrp/platform';
import { errorBody } from './error-handler';
import { STRICT_TRANSPORT_SECURITY, sendsStrictTransportSecurity } from './strict-transport-security';

/**
 * Room for the request line and headers: the longest query a route accepts (a 64 KiB filter, which
 * URL-encoding can triple) must fit, or its declared limit could never be reached.
 */
export const MAX_HEADER_BYTES = 256 * 1024;

/** How long a refused request may go on sending before its connection is dropped. */
const LINGER_MS = 5_000;

function reasonFor(error: NodeJS.ErrnoException): string {
  return error.code === 'HPE_HEADER_OVERFLOW'
    ? `The request line and headers must fit in ${MAX_HEADER_BYTES / 1024} KiB`
    : 'The request is not well-formed HTTP';
}

/**
 * A request Node's parser refuses (a NUL or line break in a header, oversized headers, a broken
 * request line or chunk) never reaches Koa; Node would answer it with a bare status line. It gets
 * the contract's error shape like any other 400. When the fault is in the body of the request under
 * way, the answer goes out at once unless its response has started (then the connection is
 * closed, as Node does); when an earlier request on the connection is still being answered (a
 * pipelined request), the answer follows that response, never into it. Other socket errors and
 * timeouts close the connection, as Node does.
 *
 * The answer often comes while the client is still sending (a megabyte of headers): closing at once
 * would reset the connection and throw the answer away before the client reads it. The rest of
 * the request is read and dropped until the client is done, for at most LINGER_MS.
 */
function answerMalformedRequests(server: Server, extraHeaders: string): void {
  const underWay = new WeakMap<Duplex, { request: IncomingMessage; response: ServerResponse }>();
  const answered = new WeakSet<Duplex>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    const exchange = { request, response };
    underWay.set(socket, exchange);
    response.once('close', () => {
      if (underWay.get(socket) === exchange) underWay.delete(socket);
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Errors after the answer (the parser choking on the rest, the client hanging up) change nothing.
    if (answered.has(socket)) return;
    const exchange = underWay.get(socket);
    const faultInItsBody = exchange !== undefined && !exchange.request.complete;
    if (!error.code?.startsWith('HPE_') || !socket.writable || (faultInItsBody && exchange.response.headersSent)) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    socket.on('data', () => undefined);
    const answer = () => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      // Never a request of ours, so never logged: the id keeps every error answer the same shape.
      const requestId = newId();
      const body = JSON.stringify(errorBody(new DomainError('bad_request', reasonFor(error)), requestId));
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\n${extraHeaders}` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
    if (exchange && !faultInItsBody) exchange.response.once('close', answer);
    else answer();
  });
}

/** The api's HTTP server around the Koa app: the same in production, tests and benchmarks. */
export function createHttpServer(app: Koa): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app.callback());
  // A client may half-close once its request is sent (HTTP allows it): Node would abort the request
  // under way and end the connection before its answer. Kept half-open, the request is read and
  // answered, and the connection ends after that answer. Node's own switch for it is untyped
  // (`httpAllowHalfOpen`); the half-close tests hold it to its word.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  answerMalformedRequests(server, sendsStrictTransportSecurity(app) ? `Strict-Transport-Security: ${STRICT_TRANSPORT_SECURITY}\r\n` : '');
  return server;
}
