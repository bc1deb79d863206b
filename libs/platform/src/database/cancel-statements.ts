import type { EntityManager } from '@mikro-orm/postgresql';
import { DirectPgConnection } from './driver/direct-pg-driver';

/**
 * The caller of `em`'s work went away (a request whose client disconnected): cancels the
 * statement its transaction or its autocommit statements are running, by a PostgreSQL cancel
 * request, and refuses its next ones with the same error (SQLSTATE 57014), so the work stops
 * instead of holding a connection for nobody. The connections that got a cancel request are
 * ended, never pooled again. Reaches the statements of `executePrepared(em, ...)`, of MikroORM's
 * own queries and of `em.execute` given `{ id: em.id }` as its logger context, and those of the
 * transaction `em` is in.
 */
export function cancelStatements(em: EntityManager): void {
  const connection = em.getConnection();
  if (connection instanceof DirectPgConnection) connection.cancelStatementsOf(em.id, em.getTransactionContext());
}

/** `em`'s work is over: forgets that it was cancelled (once per request that was; nothing to do otherwise). */
export function forgetCancelledStatements(em: EntityManager): void {
  const connection = em.getConnection();
  if (connection instanceof DirectPgConnection) connection.forgetCancellation(em.id);
}
