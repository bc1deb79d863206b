import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How often a request whose client closed its sending side checks whether the client still reads. */
const PROBE_INTERVAL_MS = 250;

/** The requests of each connection waiting to hear that their client stopped sending: one 'end' listener per connection, not per request. */
const stoppedSendingWatchers = new WeakMap<Socket, Set<() => void>>();

function onStoppedSending(socket: Socket, watcher: () => void): () => void {
  if (socket.readableEnded) {
    watcher();
    return () => undefined;
  }
  let watchers = stoppedSendingWatchers.get(socket);
  if (!watchers) {
    const created = new Set<() => void>();
    watchers = created;
    stoppedSendingWatchers.set(socket, created);
    socket.once('end', () => {
      for (const notify of [...created]) notify();
    });
  }
  watchers.add(watcher);
  const registered = watchers;
  return () => registered.delete(watcher);
}

/**
 * Calls `onGone` once if the client goes away before the answer is written, until `stop()`.
 *
 * A connection that closes is noticed as it is. A client that only stops sending is ambiguous:
 * the server keeps such a connection half-open (httpAllowHalfOpen), since a client may half-close
 * and still read its answer. Only a write tells the two apart: while the request runs, an interim
 * `102 Processing` (which every HTTP/1.1 client reads past, RFC 9110 15.2) every PROBE_INTERVAL_MS;
 * a client that is gone answers with a reset, the next write fails and the connection closes. A
 * request answered within the first interval never sees one; HTTP/1.0 clients, which know no
 * interim answers, are never sent one.
 */
export function watchClientDeparture(request: IncomingMessage, response: ServerResponse, onGone: () => void): () => void {
  let watching = true;
  let probe: NodeJS.Timeout | undefined;
  const socket = request.socket;
  const closed = () => {
    if (watching && !response.writableFinished) onGone();
  };
  const stoppedSending = () => {
    if (!watching || probe || request.httpVersionMajor !== 1 || request.httpVersionMinor < 1) return;
    probe = setInterval(() => {
      if (!watching || response.headersSent || socket.destroyed) clearInterval(probe);
      else response.writeProcessing();
    }, PROBE_INTERVAL_MS);
    probe.unref();
  };
  // `on`, not `once` (no wrapper per request): stop() removes it.
  response.on('close', closed);
  const forget = onStoppedSending(socket, stoppedSending);
  return () => {
    watching = false;
    response.off('close', closed);
    forget();
    if (probe) clearInterval(probe);
  };
}
