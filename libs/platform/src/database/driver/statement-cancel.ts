import { connect as netConnect, type Socket } from 'node:net';
import type { Client } from 'pg';
import type { PooledConnection } from './statement';

/** SQLSTATE 57014: a statement cancelled by statement_timeout or by a cancel request. */
export const QUERY_CANCELED = '57014';

interface BackendKey {
  processID?: number | null;
  secretKey?: number | null;
  host?: string;
  port?: number;
}

/** The connections whose statements were cancelled: never handed to anyone else (a late cancel would hit their statement). */
const cancelled = new WeakSet<PooledConnection>();

/**
 * Asks PostgreSQL to cancel what `connection` is running: a CancelRequest (protocol code
 * 80877102, the backend's process id and secret key) on a connection of its own, as pg's
 * `Client.cancel` sends it, through a pooler too (PgBouncer forwards it to the server connection
 * the statement runs on). The connection is marked for discarding: the request may reach the
 * server after the statement ended and cancel the next one, so nobody may run the next one on it.
 */
export function cancelRunningStatement(connection: PooledConnection): void {
  if (cancelled.has(connection)) return;
  cancelled.add(connection);
  const { processID, secretKey, host, port } = connection as Client & BackendKey;
  if (processID == null || secretKey == null) return;
  const request = Buffer.alloc(16);
  request.writeInt32BE(16, 0);
  request.writeInt32BE(80877102, 4);
  request.writeInt32BE(processID, 8);
  request.writeInt32BE(secretKey, 12);
  const socket: Socket = host?.startsWith('/') ? netConnect(`${host}/.s.PGSQL.${port ?? 5432}`) : netConnect(port ?? 5432, host);
  socket.setTimeout(5_000, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  // Written without closing our side: the server closes the connection once it has the request.
  // PgBouncer 1.18 (Debian 12's) crashes when a cancel's client closes before the cancel went on.
  socket.once('connect', () => socket.write(request));
}

/** Whether `connection` must be ended instead of going back to the pool. */
export function wasCancelled(connection: PooledConnection): boolean {
  return cancelled.has(connection);
}

/** Ends a connection whose statement was cancelled (knex's pool drops an ended one) before the pool gets it back. */
export async function discardIfCancelled(connection: PooledConnection): Promise<void> {
  if (cancelled.has(connection)) await connection.end().catch(() => undefined);
}

/** What a statement of a cancelled owner gets instead of running: what PostgreSQL would have answered. */
export function cancelledStatementError(): Error {
  return Object.assign(new Error('canceling statement due to user request'), { code: QUERY_CANCELED, severity: 'ERROR' });
}
