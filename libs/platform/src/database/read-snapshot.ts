import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface ReadSnapshotOptions {
  /** The most each statement may run (SET LOCAL, gone at COMMIT), when it may run longer than the connection's limit. */
  statementTimeoutMs?: number;
}

/**
 * Runs `work` in a read-only REPEATABLE READ transaction of `em`: every statement of it reads the
 * same snapshot, so a second statement can read more of the rows a first one returned, as that
 * one saw them (a page of an export, then its last row's sort values). Such a transaction never
 * fails to serialize. For statements only: no entity is flushed. The transaction is `em`'s own
 * context, so a client that goes away cancels its statement as any of the request's
 * (cancelStatements).
 */
export async function withReadSnapshot<T>(em: EntityManager, { statementTimeoutMs }: ReadSnapshotOptions, work: (em: EntityManager) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) throw new Error('withReadSnapshot starts its own transaction');
  // SET takes no bind parameters; a whole number of milliseconds is all this text can hold.
  if (statementTimeoutMs !== undefined && (!Number.isSafeInteger(statementTimeoutMs) || statementTimeoutMs < 1)) {
    throw new Error(`A statement timeout is a whole number of milliseconds, got ${statementTimeoutMs}`);
  }
  const connection = em.getConnection('write');
  const transaction = await connection.begin({ isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
  em.setTransactionContext(transaction);
  try {
    // Without values, it is sent with the BEGIN, in one round trip.
    if (statementTimeoutMs !== undefined) await em.execute(`SET LOCAL statement_timeout = ${statementTimeoutMs}`, [], 'all', { id: em.id } as never);
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
