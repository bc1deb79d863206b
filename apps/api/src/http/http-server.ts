import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { DomainError } from '@mrp/platform';
import { errorBody } from './error-handler';

/**
 * Room for the request line and headers: the longest query a route accepts (a 64 KiB filter, which
 * URL-encoding can triple) must fit, or its declared limit could never be reached.
 */
export const MAX_HEADER_BYTES = 256 * 1024;

function reasonFor(error: NodeJS.ErrnoException): string {
  return error.code === 'HPE_HEADER_OVERFLOW'
    ? `The request line and headers must fit in ${MAX_HEADER_BYTES / 1024} KiB`
    : 'The request is not well-formed HTTP';
}

/**
 * A request Node's parser refuses (a NUL or line break in a header, oversized headers, a broken
 * request line or chunk) never reaches Koa; Node would answer it with a bare status line. It gets
 * the contract's error shape like any other 400, unless the connection's current response has
 * already started (its bytes must not be corrupted), as Node's own answer does. Other socket errors
 * and timeouts close the connection.
 */
function answerMalformedRequests(server: Server): void {
  const currentResponse = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    currentResponse.set(request.socket, response);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!error.code?.startsWith('HPE_') || !socket.writable || currentResponse.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(errorBody(new DomainError('bad_request', reasonFor(error))));
    socket.end(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** The api's HTTP server around the Koa app: the same in production, tests and benchmarks. */
export function createHttpServer(app: Koa): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app.callback());
  answerMalformedRequests(server);
  return server;
}
