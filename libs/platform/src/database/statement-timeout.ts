import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs `work` in a transaction of `em` whose statements may each run up to `timeoutMs` (SET LOCAL,
 * gone at COMMIT), for a statement a request runs that may take longer than a request's limit (a
 * page of an export). For statements only: no entity is flushed. The transaction is `em`'s own
 * context, so a client that goes away cancels its statement as any of the request's
 * (cancelStatements).
 */
export async function withStatementTimeout<T>(em: EntityManager, timeoutMs: number, work: (em: EntityManager) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) throw new Error('withStatementTimeout starts its own transaction');
  // SET takes no bind parameters; a whole number of milliseconds is all this text can hold.
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new Error(`A statement timeout is a whole number of milliseconds, got ${timeoutMs}`);
  const connection = em.getConnection('write');
  const transaction = await connection.begin();
  em.setTransactionContext(transaction);
  try {
    // Without values, it is sent with the BEGIN, in one round trip.
    await em.execute(`SET LOCAL statement_timeout = ${timeoutMs}`, [], 'all', { id: em.id } as never);
    const result = await work(em);
    await connection.commit(transaction);
    return result;
  } catch (error) {
    await connection.rollback(transaction).catch(() => undefined);
    throw error;
  } finally {
    em.setTransactionContext(undefined);
  }
}
