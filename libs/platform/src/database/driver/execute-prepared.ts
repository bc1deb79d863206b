import type { EntityManager } from '@mikro-orm/postgresql';
import { DirectPgConnection } from './direct-pg-driver';
import type { PreparedStatement, PreparedValue } from './prepared-statement';
import { RowHandlerError, type RowHandler } from './statement';

/** Runs `work` on the context's DirectPgConnection; its errors come as MikroORM's exceptions, like those of `em.execute`. */
async function onDirectConnection<T>(em: EntityManager, caller: string, work: (connection: DirectPgConnection) => Promise<T>): Promise<T> {
  const connection = em.getConnection();
  if (!(connection instanceof DirectPgConnection)) {
    throw new Error(`${caller} needs the ORM of createOrm (its DirectPgDriver)`);
  }
  try {
    return await work(connection);
  } catch (error) {
    // A streamed statement's row handler failed: its own error, as it threw it.
    if (error instanceof RowHandlerError) throw error.cause;
    throw em.getDriver().convertException(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * `em.execute` for a prepared statement: on the context's transaction when it has one (BEGIN, if
 * still due, travels in the same round trip), else as one autocommit statement on a pooled
 * connection.
 */
export function executePrepared<T = Record<string, unknown>>(em: EntityManager, statement: PreparedStatement, values: readonly PreparedValue[]): Promise<T[]> {
  return onDirectConnection(em, 'executePrepared', (connection) => connection.executePrepared<T>(statement, values, em.getTransactionContext(), em.id));
}

/**
 * A prepared write that nothing in the transaction reads back (an outbox row), sent with COMMIT
 * in its round trip (see `DirectPgConnection.executePreparedAtCommit`). Its failure fails the
 * commit: the whole transaction is rolled back and the procedure fails.
 */
export function executePreparedAtCommit(em: EntityManager, statement: PreparedStatement, values: readonly PreparedValue[]): Promise<void> {
  return onDirectConnection(em, 'executePreparedAtCommit', (connection) => connection.executePreparedAtCommit(statement, values, em.getTransactionContext()));
}

/**
 * `em.execute` (MikroORM's `?` placeholders) for a large result read as it arrives: each row goes
 * to `onRow` as its values in column order, as text, and none is kept; answers how many rows
 * there were. On the context's transaction when it has one; cancelled with the context's other
 * statements when its client goes away.
 */
export function executeStreamed(em: EntityManager, sql: string, params: readonly unknown[], onRow: RowHandler): Promise<number> {
  return onDirectConnection(em, 'executeStreamed', (connection) => connection.executeStreamed(sql, params, onRow, em.getTransactionContext(), em.id));
}
